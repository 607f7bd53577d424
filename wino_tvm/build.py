"""CLI: python -m wino_tvm.build --dtype fp16 --fusion shmem [--out DIR] ...

Generates the TVM prototype, reconstructs it, writes the artifact, compiles it with nvcc when
nvcc is present, and runs it when a GPU is present; otherwise prints the command that does.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from .config import (
    F23_M,
    F23_STAGES,
    FUSIONS,
    KNOWN_DEVICES,
    LANE_FRAGMENT,
    LANE_ONLY_KNOBS,
    LANE_TILES,
    WGMMA_ARCH,
    KernelConfig,
)
from .errors import NoGpu, NvccNotFound, WinoError
from .workload import (
    ACCUMULATORS,
    EPILOGUE_OPS,
    TILE_SIZES,
    Conv2dWorkload,
    default_tile_size,
    parse_epilogue,
    resolve_output,
)

ARCH_DEVICE = {"sm_80": "a100", "sm_90": "h100"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m wino_tvm.build",
        description="Build a Tensor Core Winograd F(m x m, 3x3) convolution artifact.",
    )
    p.add_argument("--dtype", choices=("fp16", "int8"), default="fp16",
                   help="input/weight precision (fp16: f16 out; int8: see --out-dtype)")
    p.add_argument("--out-dtype", default="",
                   help="output precision: fp16 for fp16; for int8 fp32 (default), fp16 or int8, "
                        "both divided by a y_scale given at run time (int8 rounded and "
                        "saturated)")
    p.add_argument("--epilogue", default="",
                   help="fused into the output transform, comma-separated, applied as "
                        f"relu(conv + bias + residual): any of {', '.join(EPILOGUE_OPS)} "
                        "(e.g. bias,relu)")
    p.add_argument("--fusion", choices=FUSIONS, default="shmem",
                   help="none: TVM prototype as generated (4 kernels); syncfree: prototype with "
                        "BGEMM barriers reduced to warp barriers; shmem / llc: ITrans+BGEMM fused "
                        "through shared memory / L2 (PKF); full: ITrans+BGEMM+OTrans in one "
                        "kernel")
    p.add_argument("--m", type=int, choices=TILE_SIZES,
                   help="output tile size (default 4, 2 for int8 with --accum fp16; with "
                        "--tuning-log, the best logged m)")
    p.add_argument("--accum", help="BGEMM accumulator: fp32 (default) or fp16 for fp16; int32 "
                                   "(default), fp16 (the lane kernel, m=2) or fp32 (the F(2, 3) "
                                   "kernel) for int8")
    p.add_argument("--shape", default="1,224,224,64,64",
                   help="N,H,W,C,K of the NHWC 3x3 stride-1 pad-1 convolution")
    p.add_argument("--tb-m", type=int, default=16, help="Winograd tiles per thread block")
    p.add_argument("--tb-n", type=int, default=16, help="output channels per thread block")
    p.add_argument("--tb-k", type=int, default=16,
                   help="input channels per reduction step (--lane: per staged patch chunk)")
    p.add_argument("--frag", default="16x16x16", help="WMMA fragment MxNxK: 16x16x16, 32x8x16, "
                                                      "8x32x16")
    p.add_argument("--u-l2", action="store_true",
                   help="load the BGEMM's B fragments (U) straight from global memory (L2) "
                        "instead of staging them in shared memory")
    p.add_argument("--persist", action="store_true",
                   help="full fusion with tb_k = C: stage U once per block and loop the block "
                        "over tile blocks (as many blocks as stay resident)")
    p.add_argument("--groups", type=int, default=1,
                   help="with --persist: warp groups per block, sharing U, each computing its "
                        "own tile blocks with its own V/M staging")
    p.add_argument("--k-split", type=int, default=1,
                   help="with --persist (m=2): warp groups per block sharing each tile block and "
                        "its input transform, each computing tb_n of the block's k_split x tb_n "
                        "output channels")
    p.add_argument("--ot-channels", type=int, default=1,
                   help="adjacent output channels per OTrans thread: 2 vectorises its M loads "
                        "and y stores (more registers; tuned)")
    p.add_argument("--m-rounds", type=int, default=1,
                   help="full fusion: stage and transform M in this many rounds of tb_n / "
                        "m_rounds channels (a smaller M slice, more blocks per SM; tuned)")
    p.add_argument("--min-blocks", type=int, default=0,
                   help="full fusion: blocks per SM that __launch_bounds__ asks ptxas to fit "
                        "in registers (0: none; may spill; tuned)")
    p.add_argument("--lane", action="store_true",
                   help="full fusion in the MMA's lane layout (templates/lane_layout.cu; fp16, "
                        "or int8 with --accum fp16, m=2): a warp owns 16 tiles x --tb-n (16 or "
                        "32) output channels for all taps (or half of them, for twice the "
                        "channels, with --tap-split 2), "
                        "--k-split channel slices share a tile group, --groups tile groups per "
                        "persistent block, the input staged in chunks of --tb-k channels through "
                        "--stages buffers; sets --fusion full, --persist, --tb-m 16 and the "
                        "16x8x16 fragment")
    p.add_argument("--stages", type=int,
                   help="with --lane: input patch buffers per tile group (2 to 4, default 2); "
                        "with --f23: input buffers per warpgroup (3 or 4, default 3); tuned")
    p.add_argument("--tap-split", type=int, default=1,
                   help="with --lane: warps per channel slice, each with a share of the tap rows "
                        "(1 or 2; tuned)")
    p.add_argument("--wgmma", action="store_true",
                   help="with --lane: wgmma instead of mma.sync (sm_90 GPUs, compiled for "
                        "sm_90a; --groups a multiple of 4; tuned)")
    p.add_argument("--tma", action="store_true",
                   help="with --lane: each input patch chunk staged by one TMA copy instead of "
                        "per-thread cp.async (sm_90 GPUs, compiled for sm_90a; tuned)")
    p.add_argument("--exchange-own", action="store_true",
                   help="with --lane --tap-split 2: the OTrans exchange in shared memory of its "
                        "own (one barrier instead of two; tuned)")
    p.add_argument("--stack", action="store_true",
                   help="with --lane --tma --groups 4: the tile groups stacked one above the "
                        "other on one shared input patch per chunk (tuned)")
    p.add_argument("--f23", action="store_true",
                   help="full fusion by one-dimensional Winograd F(2, 3) along w "
                        "(templates/f23_wgmma.cu; fp16 or int8 with --accum fp32, m=2, C a "
                        "multiple of 16, K of 64, W up to 80; sm_90 GPUs, compiled for sm_90a): "
                        "3 GEMMs "
                        "per tap over shifted tile rows, wgmma with V in registers, for "
                        "C >= 128; sets the tiles, the fragment and --fusion full")
    p.add_argument("--c-split", type=int, default=1,
                   help="with --f23: a cluster of this many blocks (1, 2 or 4) shares each "
                        "block's outputs, each taking that share of the C loop, for workloads "
                        "with fewer blocks than SMs; tuned")
    p.add_argument("--stream-k", action="store_true",
                   help="with --f23 --persist: each block takes an equal contiguous share of "
                        "all tiles' C chunks (stream-K), a tile split between two blocks summed "
                        "through a global workspace, so the last wave leaves no SM idle; tuned")
    p.add_argument("--compact-rows", action="store_true",
                   help="with --f23: GEMM rows of the images' rows only, without a row of "
                        "garbage tiles over the zero row between images (1 / (H + 1) fewer "
                        "MMAs, a larger input patch); tuned")
    p.add_argument("--row-pairs", action="store_true",
                   help="with --f23: each thread's two GEMM rows are tiles one row of tiles "
                        "apart, so one transformed input row serves both (a third fewer patch "
                        "loads, a patch of whole pairs of rows); tuned")
    p.add_argument("--arch", default="sm_90", choices=sorted(ARCH_DEVICE),
                   help="CUDA architecture to generate and compile for")
    p.add_argument("--out", type=Path, default=Path("artifacts/build"), help="artifact folder")
    p.add_argument("--tuning-log", type=Path,
                   help="take the fastest correct config logged for this workload and device "
                        "(tuning_logs/h100.jsonl); tile and fusion flags are then ignored")
    p.add_argument("--drop-barrier", action="append", default=[], metavar="KERNEL:INDEX",
                   help="delete a barrier kept removable by the GPU sync search "
                        "(reconstructor.sync_search); repeatable")
    p.add_argument("--no-run", action="store_true", help="do not run even if a GPU is present")
    p.add_argument("--checks", type=int, default=3, help="correctness checks (fresh inputs each)")
    return p.parse_args(argv)


def _device_name(arch: str) -> str:
    """The GPU's name when one is present, else the known device of --arch."""
    from .tune.device import visible_gpus

    gpus = visible_gpus()
    return gpus[0].name if gpus else KNOWN_DEVICES[ARCH_DEVICE[arch]].name


def _tuned(args: argparse.Namespace,
           probe: Conv2dWorkload) -> tuple[Conv2dWorkload, KernelConfig] | None:
    from .tune.best import best_config

    device = _device_name(args.arch)
    # The next best guesses where the log has no record of this case: the best with the dtype's
    # default y, then without the epilogue.
    default_y = resolve_output(probe.dtype, "")
    lookups = [probe] + ([dataclasses.replace(probe, out=default_y)]
                         if probe.out != default_y else [])
    if probe.epilogue:
        lookups += [dataclasses.replace(lookup, epilogue=()) for lookup in lookups]
    for lookup in lookups:
        found = best_config(args.tuning_log, lookup, device, m=args.m)
        if found is not None:
            break
    if found is None:
        print(f"note: {args.tuning_log} has no correct record for {probe.key} {args.dtype} on "
              f"{device}; using the default config")
        return None
    if lookup != probe:
        instead = ([f"an {lookup.out} y"] if lookup.out != probe.out else []) + (
            ["no epilogue"] if lookup.epilogue != probe.epilogue else [])
        print(f"note: {args.tuning_log} has no record of this case; using its best config with "
              f"{' and '.join(instead)}")
    cfg, record = found
    print(f"tuning log: {record['config']} at {record['median_us']:.1f} us on {record['device']}")
    return dataclasses.replace(probe, m=record["m"]), cfg


def _config(args: argparse.Namespace) -> tuple[Conv2dWorkload, KernelConfig]:
    accum = args.accum or ACCUMULATORS[args.dtype][0]
    m = args.m or (F23_M if args.f23 else default_tile_size(args.dtype, accum))
    wl = Conv2dWorkload.parse_shape(args.shape, dtype=args.dtype, m=m, accum=accum,
                                    epilogue=parse_epilogue(args.epilogue), out=args.out_dtype)
    if args.tuning_log:
        tuned = _tuned(args, wl)
        if tuned is not None:
            wl, cfg = tuned
            cfg.validate(wl, KNOWN_DEVICES[ARCH_DEVICE[args.arch]])
            return wl, cfg
    try:
        fm, fn, fk = (int(v) for v in args.frag.split("x"))
    except ValueError:
        raise WinoError(f"--frag {args.frag!r} must look like 16x16x16") from None
    cfg = KernelConfig(args.tb_m, args.tb_n, args.tb_k, fm, fn, fk, args.fusion,
                       u_smem=not args.u_l2, persist=args.persist, groups=args.groups,
                       ot_channels=args.ot_channels, k_split=args.k_split,
                       m_rounds=args.m_rounds, min_blocks=args.min_blocks)
    lane_knobs = {knob: getattr(args, knob) for knob in LANE_ONLY_KNOBS if knob != "stages"}
    stages = args.stages or cfg.stages
    if args.f23:
        if args.lane:
            raise WinoError("--f23 and --lane are two different kernels: choose one")
        if cfg.with_(fusion=KernelConfig().fusion, persist=False, **lane_knobs) != KernelConfig():
            raise WinoError("--f23 fixes the tiles, the fragment and every knob but --stages, "
                            "--c-split, --persist, --stream-k, --compact-rows and --row-pairs: "
                            "drop the others")
        cfg = KernelConfig.f23_config(args.stages or F23_STAGES[0], args.c_split, args.persist,
                                      args.stream_k, args.compact_rows, args.row_pairs)
    elif args.c_split != 1:
        raise WinoError("--c-split is a knob of the F(2, 3) kernel: add --f23 or drop it")
    elif args.stream_k:
        raise WinoError("--stream-k is a schedule of the F(2, 3) kernel: add --f23 --persist or "
                        "drop it")
    elif args.compact_rows or args.row_pairs:
        flag = "--compact-rows" if args.compact_rows else "--row-pairs"
        raise WinoError(f"{flag} is a layout of the F(2, 3) kernel: add --f23 or drop it")
    elif args.lane:
        cfg = cfg.with_(tb_m=LANE_TILES, frag_m=LANE_FRAGMENT[0], frag_n=LANE_FRAGMENT[1],
                        frag_k=LANE_FRAGMENT[2], fusion="full", persist=True, lane=True,
                        stages=stages, **lane_knobs)
    elif unused := cfg.with_(stages=stages, **lane_knobs).lane_only_knobs():
        flag = "--" + unused[0].replace("_", "-")
        raise WinoError(f"{flag} is a knob of the lane kernel: add --lane or drop it")
    sm90_gpu = WGMMA_ARCH.removesuffix("a")  # the GPUs that run the arch-specific target
    for flag, on in (("--wgmma", cfg.wgmma), ("--tma", cfg.tma), ("--f23", cfg.f23)):
        if on and args.arch != sm90_gpu:
            raise WinoError(f"{flag} runs on {sm90_gpu} GPUs (H100, H200), not {args.arch}: "
                            f"drop it or build with --arch {sm90_gpu}")
    cfg.validate(wl, KNOWN_DEVICES[ARCH_DEVICE[args.arch]])
    return wl, cfg


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        wl, cfg = _config(args)
        from .artifact import build_artifact  # imports TVM: only after the cheap checks

        build_artifact(wl, cfg, args.out, args.arch, dropped_barriers=tuple(args.drop_barrier))
        from .runner import compile_program, detect_arch, run_program

        try:
            binary = compile_program(args.out, args.arch)
        except NvccNotFound as exc:
            print(f"note: {exc}\nThe artifact in {args.out} compiles on any machine with nvcc.")
            return 0
        print(f"compiled {binary}")
        run_cmd = f"python -m wino_tvm.runner {args.out} --checks {args.checks}"
        if args.no_run:
            print(f"not run (--no-run); on a GPU machine: {run_cmd}")
            return 0
        try:
            gpu_arch = detect_arch()
        except NoGpu:
            print(f"no NVIDIA GPU here; run the artifact on a GPU machine with:\n  {run_cmd}")
            return 0
        if gpu_arch != args.arch:
            binary = compile_program(args.out, gpu_arch)
        record = run_program(binary, ["--checks", str(args.checks)], timeout_s=600)
    except WinoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(record)
    return 0 if record.get("correct") else 1


if __name__ == "__main__":
    sys.exit(main())
