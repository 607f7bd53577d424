"""CLI of the tuner: space | build | measure | run | best.

python -m wino_tvm.tune build --workload 1,224,224,64,64 --dtype fp16,int8 --device h100 \\
    --trials 64 --out BATCH                          # CPU side, needs TVM
python -m wino_tvm.tune measure BATCH --log tuning_logs/h100.jsonl   # GPU side, no TVM
python -m wino_tvm.tune run --workload ... --log tuning_logs/h100.jsonl   # both on one machine
python -m wino_tvm.tune space --workload ... --device h100           # sizes and refusals only
python -m wino_tvm.tune best --log tuning_logs/h100.jsonl --workload ... --device-name h100
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from ..device import (
    KNOWN_DEVICES,
    DeviceLimits,
    device_matches,
    nvcc_version,
    resolve_limits,
    visible_gpus,
)
from ..errors import WinoError
from ..kernels import FAMILIES
from ..kernels.pkf.config import FUSIONS
from ..runner import detect_arch
from ..workload import (
    ACCUMULATORS,
    Conv2dWorkload,
    epilogue_text,
    parse_epilogue,
    resolve_output,
)
from .best import best_config, matching
from .manifest import MANIFEST_FILE, Manifest
from .measure import Settings, measure_batch
from .records import Record, read_records
from .search import BASELINE, baselines, select
from .space import Axes, Candidate, config_space


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(","))


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split(","))


OUT_DTYPE_HELP = "y's type for int8 inputs: fp32 (default), fp16 or int8 (times 1 / y_scale)"


def _add_space_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workload", action="append", required=True, metavar="N,H,W,C,K",
                   help="a conv shape (repeat the flag for several)")
    p.add_argument("--dtype", type=_words, default=("fp16",), help="fp16, int8 or fp16,int8")
    p.add_argument("--accum", help="BGEMM accumulator (default: fp32 for fp16, int32 for int8)")
    p.add_argument("--epilogue", default="",
                   help="tune the kernels with this fused epilogue, e.g. bias,residual,relu")
    p.add_argument("--out-dtype", default="", help=OUT_DTYPE_HELP)
    axes = p.add_argument_group("the space (defaults: each family's knob table)")
    axes.add_argument("--family", default="",
                      help=f"kernel families, comma-separated (default all: {', '.join(FAMILIES)})")
    axes.add_argument("--m", type=_ints, default=Axes.m, help="Winograd tile sizes")
    axes.add_argument("--axis", action="append", default=[], metavar="[FAMILY.]KNOB=V1,V2",
                      help="the values a knob takes (repeatable; `python -m wino_tvm.build "
                           "--family F --list-knobs` lists them), e.g. lane.wgmma=0,1")
    dev = p.add_argument_group("device limits (default: the GPU here)")
    dev.add_argument("--device", choices=sorted(KNOWN_DEVICES), help="use the known table")
    dev.add_argument("--sms", type=int, help="override: streaming multiprocessors")
    dev.add_argument("--smem", type=int, help="override: shared memory per block (opt-in), B")
    dev.add_argument("--l2", type=int, help="override: L2 size, B")


def _add_search_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trials", type=int, default=64,
                   help="budget per workload and dtype: exhaustive when the space fits")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the sample (one config per family in turn)")
    p.add_argument("--arch", help="CUDA arch to generate for (default: sm_90, or the GPU's)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="parallel builder processes (each imports TVM once)")
    p.add_argument("--skip-logged", type=Path, metavar="LOG",
                   help="leave out configs this log already holds for the device")


def _add_measure_args(p: argparse.ArgumentParser, log_required: bool) -> None:
    p.add_argument("--log", type=Path, required=log_required, help="append records here")
    p.add_argument("--checks", type=int, default=3, help="correctness checks, fresh inputs each")
    p.add_argument("--iters", type=int, default=100, help="timed forward calls")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    p.add_argument("--nvcc-jobs", type=int,
                   help="parallel nvcc (default: the cores less one per GPU, so that nvcc does "
                        "not starve the process feeding a GPU)")
    p.add_argument("--retry-failed", action="store_true",
                   help="measure again candidates logged as compile_error, run_error or timeout")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.tune", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    space = sub.add_parser("space", help="print the pruned space's size and what each rule refused")
    _add_space_args(space)
    space.add_argument("--list", action="store_true", help="print every kept config")
    build = sub.add_parser("build", help="generate the candidates (CPU side, TVM)")
    _add_space_args(build)
    _add_search_args(build)
    build.add_argument("--out", type=Path, required=True, help="batch folder")
    measure = sub.add_parser("measure", help="compile and measure a batch (GPU side, no TVM)")
    measure.add_argument("batch", type=Path)
    measure.add_argument("--arch", help="nvcc arch (default: the GPU's)")
    _add_measure_args(measure, log_required=True)
    run = sub.add_parser("run", help="build then measure (TVM and a GPU on one machine)")
    _add_space_args(run)
    _add_search_args(run)
    _add_measure_args(run, log_required=True)
    run.add_argument("--out", type=Path, default=Path("artifacts/tune"), help="batch folder")
    best = sub.add_parser("best", help="the fastest correct logged config of a workload")
    best.add_argument("--log", type=Path, required=True)
    best.add_argument("--workload", required=True, metavar="N,H,W,C,K")
    best.add_argument("--dtype", default="fp16", choices=("fp16", "int8"))
    best.add_argument("--accum")
    best.add_argument("--epilogue", default="", help="the fused epilogue, e.g. bias,relu")
    best.add_argument("--out-dtype", default="", help=OUT_DTYPE_HELP)
    best.add_argument("--m", type=int, help="only this tile size (default: any)")
    best.add_argument("--fusion", choices=FUSIONS, help="only this fusion (default: any)")
    best.add_argument("--device-name", help="GPU name or part of it (default: the GPU here)")
    return p.parse_args(argv)


def _axes(args: argparse.Namespace) -> Axes:
    """The space's axes from --family, --m and --axis (parsed once, before any output)."""
    if getattr(args, "axes", None) is None:
        args.axes = Axes.parse(args.family, args.m, args.axis)
    return args.axes


def _workload(args: argparse.Namespace, shape: str, dtype: str,
              m: int | None = None) -> Conv2dWorkload:
    """shape as dtype with args' accumulator, epilogue and y; m (default: one the dtype and
    accumulator take) only names the workload: the space's axis sets each candidate's, and
    best searches every m unless --m."""
    accum = args.accum or ACCUMULATORS[dtype][0]
    return Conv2dWorkload.parse_shape(shape, dtype=dtype, accum=accum,
                                      m=m or 2,
                                      epilogue=parse_epilogue(args.epilogue), out=args.out_dtype)


def _workloads(args: argparse.Namespace) -> list[Conv2dWorkload]:
    return [_workload(args, shape, dtype) for shape in args.workload for dtype in args.dtype]


def _label(wl: Conv2dWorkload) -> str:
    """'N1_H224_W224_C64_K64 fp16/fp32' (+ ' +bias,relu' with an epilogue, ' y int8' with a y
    other than the dtype's default) for progress lines."""
    tag = epilogue_text(wl.epilogue)
    y = f" y {wl.out}" if wl.out != resolve_output(wl.dtype, "") else ""
    return f"{wl.key} {wl.dtype}/{wl.accum}" + (f" +{tag}" if tag else "") + y


def _limits(args: argparse.Namespace) -> DeviceLimits:
    limits = resolve_limits(args.device, args.sms, args.smem, args.l2)
    print(f"device limits: {limits.name}: {limits.sms} SMs, {limits.smem_per_block} B shared "
          f"memory per block, {limits.l2_bytes} B L2")
    return limits


def _plan(args: argparse.Namespace, limits: DeviceLimits) -> tuple[list[Candidate], list[dict]]:
    """The candidates to build for every workload and dtype, and how each set was chosen."""
    logged = set()
    if args.skip_logged:
        logged = {r.key for r in read_records(args.skip_logged)
                  if device_matches(limits.name, r.device)}
    chosen, searches = [], []
    axes = _axes(args)
    for wl in _workloads(args):
        space, refused = config_space(wl, limits, axes)
        space = [c for c in space if c.key not in logged]
        always = [c for c in baselines(wl, limits, axes) if c.key not in logged]
        picked, strategy = select(space, args.trials, args.seed, always)
        print(f"{_label(wl)}: {len(space)} configs after pruning "
              f"(refused: {dict(refused)}); {strategy}: {len(picked)}")
        chosen += picked
        searches.append({"workload": wl.shape_dict(), "dtype": wl.dtype, "accum": wl.accum,
                         "epilogue": epilogue_text(wl.epilogue), "out": wl.out,
                         "space": len(space), "refused": dict(refused), "strategy": strategy,
                         "trials": args.trials, "seed": args.seed, "selected": len(picked)})
    return list(dict.fromkeys(chosen)), searches  # a --workload given twice is built once


def cmd_space(args: argparse.Namespace) -> int:
    limits = _limits(args)
    for wl in _workloads(args):
        space, refused = config_space(wl, limits, _axes(args))
        print(f"{_label(wl)}: {len(space)} configs kept, "
              f"{sum(refused.values())} refused: {dict(refused)}")
        if args.list:
            print("\n".join(f"  {c.cfg.name(c.wl)}" for c in space))
    return 0


def _build(args: argparse.Namespace, limits: DeviceLimits, arch: str) -> None:
    from ..commit import commit_id
    from .builder import build_batch  # the pkf family's candidates import TVM

    candidates, searches = _plan(args, limits)
    entries = build_batch(candidates, args.out, arch, args.jobs)
    # A batch folder built in several steps keeps the candidates of every step.
    earlier = Manifest.read(args.out) if (args.out / MANIFEST_FILE).is_file() else None
    if earlier is not None:
        names = {e.name for e in entries}
        entries = [e for e in earlier.entries if e.name not in names] + entries
        searches = [*earlier.searches, *searches]
    path = Manifest(tuple(entries), arch, commit_id(), dataclasses.asdict(limits),
                    tuple(searches)).write(args.out)
    failed = sum(not e.built for e in entries)
    print(f"{path}: {len(entries)} candidates ({failed} failed to build)")


def cmd_build(args: argparse.Namespace) -> int:
    _build(args, _limits(args), args.arch or "sm_90")
    print(f"next, on the GPU machine: python -m wino_tvm.tune measure {args.out} "
          "--log tuning_logs/<device>.jsonl")
    return 0


def _measure(args: argparse.Namespace, batch: Path, arch: str) -> int:
    gpus = visible_gpus()
    if not gpus:
        raise WinoError("no GPU visible (nvidia-smi lists none, or CUDA_VISIBLE_DEVICES hides "
                        "them): run measure on the GPU machine")
    jobs = args.nvcc_jobs or max(1, (os.cpu_count() or 1) - len(gpus))
    settings = Settings(arch, nvcc_version(), args.checks, args.iters, args.warmup,
                        args.timeout, jobs)
    records = measure_batch(batch, args.log, gpus, settings, retry_failed=args.retry_failed)
    _summary(read_records(args.log), records, gpus[0].name)
    return 0


def _summary(log: list[Record], new: list[Record], device: str) -> None:
    """Per workload of this session: the best logged config and its gain over the baseline."""
    groups = {(r.workload_key, r.dtype, r.accum, r.epilogue, r.output): r for r in new}
    for _, sample in sorted(groups.items()):
        wl = Candidate.from_config_name(sample.workload, sample.config, sample.epilogue,
                                        sample.out).wl
        ok = [r for r in matching(log, wl, device) if r.device == device]
        if not ok:
            print(f"{_label(wl)}: no correct config")
            continue
        best = min(ok, key=lambda r: r.median_us)
        line = f"{_label(wl)}: best {best.median_us:.1f} us {best.config}"
        base = [r for r in ok if r.kernel_config() == BASELINE]
        if base:
            ref = min(base, key=lambda r: r.median_us)
            gain = ref.median_us / best.median_us
            line += f"; baseline {ref.config} {ref.median_us:.1f} us: {gain:.2f}x"
        print(line)


def cmd_measure(args: argparse.Namespace) -> int:
    return _measure(args, args.batch, args.arch or detect_arch())


def cmd_run(args: argparse.Namespace) -> int:
    arch = args.arch or detect_arch()
    _build(args, _limits(args), arch)
    return _measure(args, args.out, arch)


def cmd_best(args: argparse.Namespace) -> int:
    wl = _workload(args, args.workload, args.dtype, args.m)
    gpus = visible_gpus()
    device = args.device_name or (gpus[0].name if gpus else None)
    if device is None:
        raise WinoError("no GPU here: pass --device-name (e.g. h100)")
    found = best_config(args.log, wl, device, args.m, args.fusion)
    if found is None:
        print(f"no record for this workload and device ({_label(wl)} on {device}) in {args.log}")
        return 1
    cfg, record = found
    print(f"{record['config']}: {record['median_us']:.1f} us on {record['device']} "
          f"(rel_l2 {record['rel_l2_err']:.1e}, {record['timestamp']}, commit {record['commit']})")
    print(f"knobs: {cfg.as_dict()}, m={record['m']}")
    return 0


COMMANDS = {"space": cmd_space, "build": cmd_build, "measure": cmd_measure, "run": cmd_run,
            "best": cmd_best}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if hasattr(args, "axis"):
            _axes(args)  # a mistake in --family/--axis is reported before the device line
        return COMMANDS[args.command](args)
    except WinoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
