"""CLI: build one convolution kernel artifact.

python -m wino_tvm.build --dtype fp16 --fusion shmem                 # the paper's PKF-Shmem
python -m wino_tvm.build --shape 1,448,448,64,64 --family lane --set tb_n=32 --set wgmma=1
python -m wino_tvm.build --config fp16-fp32-m2-tbm128-...-f23-st3 --shape 32,14,14,256,256
python -m wino_tvm.build --shape 1,960,960,64,64 --tuning-log tuning_logs/h100.jsonl

Generates the kernels (a TVM prototype rewritten by the reconstructor, or a filled template),
writes the artifact, compiles it with nvcc when nvcc is present, and runs it when a GPU is
present; otherwise prints the command that does.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from .device import KNOWN_DEVICES, WGMMA_ARCH, DeviceLimits, visible_gpus
from .errors import NoGpu, NvccNotFound, WinoError
from .kernels import FAMILIES, FamilyConfig, family, parse_config
from .math.tolerance import expected_error_note
from .workload import ACCUMULATORS, EPILOGUE_OPS, Conv2dWorkload, parse_epilogue, resolve_output

# The device whose limits a build checks (and whose tuning records it looks up) without a GPU.
ARCH_DEVICE = {"sm_80": "a100", "sm_90": "h100"}
DEFAULT_FAMILY = "pkf"
# m when none is asked for: F(2x2) and F(2, 3) are within the accuracy bar of every dtype
# (math/tolerance.py); larger tiles are an explicit choice.
DEFAULT_M = 2


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m wino_tvm.build", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    wl = p.add_argument_group("the convolution (NHWC, 3x3, stride 1, padding 1)")
    wl.add_argument("--shape", default="1,224,224,64,64", help="N,H,W,C,K")
    wl.add_argument("--dtype", choices=("fp16", "int8"), default="fp16",
                    help="input and weight precision")
    wl.add_argument("--accum", help="accumulator: fp32 (default) or fp16 for fp16; int32 "
                                    "(default, pkf), fp16 (lane) or fp32 (f23) for int8")
    wl.add_argument("--m", type=int, help=f"Winograd output tile (default {DEFAULT_M}: "
                                          "within the accuracy bar; 4 is less accurate)")
    wl.add_argument("--out-dtype", default="",
                    help="y's type: fp16 for fp16; for int8 fp32 (default), fp16 or int8, "
                         "divided by a y_scale given at run time")
    wl.add_argument("--epilogue", default="",
                    help=f"fused into the output transform, applied as relu(conv + bias + "
                         f"residual): any of {', '.join(EPILOGUE_OPS)}, comma-separated")
    kernel = p.add_argument_group("the kernel (one of --family/--set, --config, --tuning-log)")
    kernel.add_argument("--family", choices=sorted(FAMILIES),
                        help=f"kernel family (default {DEFAULT_FAMILY}); without --set its "
                             "no-tuning default config")
    kernel.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                        help="a knob of the family (repeatable); `--list-knobs` lists them")
    kernel.add_argument("--fusion", help="the pkf family's fusion (none, syncfree, shmem, llc, "
                                         "full): short for --family pkf --set fusion=...")
    kernel.add_argument("--config", help="a config name as the tuning logs write it")
    kernel.add_argument("--tuning-log", type=Path,
                        help="the fastest correct config logged for this workload and device")
    kernel.add_argument("--list-knobs", action="store_true",
                        help="print the family's knobs (name, values, default, help) and exit")
    kernel.add_argument("--drop-barrier", action="append", default=[], metavar="KERNEL:INDEX",
                        help="pkf: delete a barrier the GPU sync search found removable")
    out = p.add_argument_group("output")
    out.add_argument("--arch", default="sm_90", choices=sorted(ARCH_DEVICE),
                     help="CUDA architecture to generate and compile for")
    out.add_argument("--out", type=Path, default=Path("artifacts/build"), help="artifact folder")
    out.add_argument("--no-run", action="store_true", help="do not run even if a GPU is present")
    out.add_argument("--checks", type=int, default=3,
                     help="correctness checks (fresh inputs each)")
    return p.parse_args(argv)


def list_knobs(name: str) -> str:
    """One line per knob of the family: name, values, default, help."""
    fam = family(name)
    lines = [f"{fam.name}: {fam.source}"]
    for knob in fam.Config.KNOBS.values():
        values = ",".join(knob.format(v) for v in knob.domain)
        lines.append(f"  {knob.name}={{{values}}} (default {knob.format(knob.default)}): "
                     f"{knob.help}")
    return "\n".join(lines)


def _device(arch: str) -> DeviceLimits:
    """The GPU's name with its known limits when one is present, else --arch's device."""
    gpus = visible_gpus()
    table = KNOWN_DEVICES[ARCH_DEVICE[arch]]
    return dataclasses.replace(table, name=gpus[0].name) if gpus else table


def _workload(args: argparse.Namespace, dtype: str, accum: str, m: int) -> Conv2dWorkload:
    return Conv2dWorkload.parse_shape(args.shape, dtype=dtype, m=m, accum=accum,
                                      epilogue=parse_epilogue(args.epilogue), out=args.out_dtype)


def _choices(args: argparse.Namespace) -> None:
    chosen = [flag for flag, on in (("--family/--set/--fusion", args.family or args.set or
                                     args.fusion), ("--config", args.config),
                                    ("--tuning-log", args.tuning_log)) if on]
    if len(chosen) > 1:
        raise WinoError(f"{' and '.join(chosen)} each choose the kernel: give one")
    if args.fusion and args.family not in (None, "pkf"):
        raise WinoError(f"--fusion is a knob of the pkf family, not {args.family}: drop it "
                        "or use --family pkf")


def _from_config(args: argparse.Namespace) -> tuple[Conv2dWorkload, FamilyConfig]:
    meta, cfg = parse_config(args.config)
    for flag, given, named in (("--dtype", args.dtype, meta["dtype"]),
                               ("--accum", args.accum, meta["accum"]), ("--m", args.m, meta["m"])):
        if given is not None and given != named and flag != "--dtype":
            raise WinoError(f"{flag} {given} contradicts --config's {named}: drop {flag}")
    return _workload(args, meta["dtype"], meta["accum"], meta["m"]), cfg


def _from_log(args: argparse.Namespace, device: DeviceLimits
              ) -> tuple[Conv2dWorkload, FamilyConfig] | None:
    from .tune.best import best_for_build

    probe = _workload(args, args.dtype, args.accum or ACCUMULATORS[args.dtype][0],
                      args.m or DEFAULT_M)
    found = best_for_build(args.tuning_log, probe, device.name, args.m)
    if found is None:
        print(f"note: {args.tuning_log} has no correct record for {probe.key} {args.dtype} on "
              f"{device.name}; using the {DEFAULT_FAMILY} family's default config")
        return None
    (wl, cfg), record, instead = found
    if instead:
        print(f"note: {args.tuning_log} has no record of this case; using its best config "
              f"with {instead}")
    print(f"tuning log: {record['config']} at {record['median_us']:.1f} us on "
          f"{record['device']}")
    return wl, cfg


def _from_family(args: argparse.Namespace, device: DeviceLimits
                 ) -> tuple[Conv2dWorkload, FamilyConfig]:
    fam = family(args.family or DEFAULT_FAMILY)
    accum = args.accum or ACCUMULATORS[args.dtype][0]
    probe = _workload(args, args.dtype, accum, args.m or DEFAULT_M)
    sizes = fam.tile_sizes(probe)
    if not sizes:
        takers = [f.name for f in FAMILIES.values() if f.tile_sizes(probe)]
        raise WinoError(f"the {fam.name} family does not take {args.dtype} with {accum} "
                        f"accumulators: use --family {' or --family '.join(takers)}"
                        if takers else f"no family takes {args.dtype} with {accum} "
                        "accumulators")
    m = args.m or (DEFAULT_M if DEFAULT_M in sizes else sizes[0])
    wl = dataclasses.replace(probe, m=m)
    settings = [*args.set, *([f"fusion={args.fusion}"] if args.fusion else [])]
    if settings:
        base = fam.default(wl, device) if fam.name != "pkf" else None
        return wl, fam.Config.from_settings(settings, base)
    why = fam.supports(wl, device)
    if why is not None:
        raise WinoError(why)
    return wl, fam.default(wl, device)


def choose(args: argparse.Namespace) -> tuple[Conv2dWorkload, FamilyConfig]:
    """The workload and config the arguments ask for, validated for --arch's device."""
    _choices(args)
    device = _device(args.arch)
    chosen = None
    if args.config:
        chosen = _from_config(args)
    elif args.tuning_log:
        chosen = _from_log(args, device)
    wl, cfg = chosen or _from_family(args, device)
    sm90 = WGMMA_ARCH.removesuffix("a")
    if cfg.needs_sm90a and args.arch != sm90:
        raise WinoError(f"{cfg.name(wl)} uses wgmma or TMA, which run on {sm90} GPUs (H100, "
                        f"H200), not {args.arch}: build with --arch {sm90}")
    cfg.validate(wl, device)
    if (note := expected_error_note(wl)) is not None:
        print(f"note: {note}")
    return wl, cfg


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.list_knobs:
            print(list_knobs(args.family or DEFAULT_FAMILY))
            return 0
        wl, cfg = choose(args)
        resolve_output(wl.dtype, wl.out)
        from .artifact import build_artifact  # imports TVM for pkf: only after the checks

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
