"""The compute-bound benchmark: per workload (C, K >= 128, large images), a sweep of the template
families' spaces and their no-tuning defaults against cuDNN's fastest (PyTorch's conv with
cudnn.benchmark, and every engine configuration of cuDNN's backend API, fp16-accumulating ones
where their error is within the candidates' bound) in one process on this GPU, each measurement
appended to a tuning log (PyTorch; GPU side).

python -m wino_tvm.bench.compute --out bench/h200/compute --log tuning_logs/h200.jsonl \
    [--workloads 1,256,256,256,256 ...] [--axis f23.strip=0,16 ...]
    [--family f44 --bound 3e-3 --stem compute_f44]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import torch

from ..math.tolerance import ACCURACY_BAR
from ..runtime import cache
from ..runtime.choice import defaults, schemes
from ..runtime.dispatch import device_of
from ..runtime.select import TIMING, measure, timer
from ..tune.records import read_records
from ..tune.space import Axes, config_space
from ..workload import Conv2dWorkload
from .cudnn import ENGINES, ConvSpec, CudnnHelper, CudnnRefused, compile_helper
from .measure import BASELINE_TOLERANCE, Operands, cudnn_engines_case
from .report import write_rows
from .timing import rotation_count

# Issue 52's shapes: SD-VAE decoder layers at 512^2 and 1024^2 output, VGG-16 at N=1 and 8,
# ResNet at N=128.
VAE = ((1, 128, 128, 512, 512), (1, 256, 256, 256, 256), (1, 512, 512, 128, 128),
       (1, 256, 256, 512, 512), (1, 512, 512, 256, 256), (1, 1024, 1024, 128, 128))
VGG = tuple((n, s, s, c, c) for n in (1, 8) for s, c in ((112, 128), (56, 256), (28, 512)))
RESNET = ((128, 28, 28, 128, 128), (128, 14, 14, 256, 256))
WORKLOADS = (*VAE, *VGG, *RESNET)
# The sweep's default axes: large images have tiles for every SM, so no stream-K.
SWEEP = ("f23.c_split=1,2", "f23.stream_k=0", "f23.compact_rows=0", "f23.row_pairs=0")


def sweep(base: Conv2dWorkload, device, axes: Axes, bound: float) -> list:
    """The pool measure() times: every scheme within the accuracy bound's candidates of the
    families' spaces, then the defaults (those not already there)."""
    pool = {}
    for wl in schemes(base, bound):
        for cand in config_space(wl, device, Axes(axes.families, (wl.m,), axes.knobs))[0]:
            pool.setdefault(cand.cfg.name(cand.wl), (cand.wl, cand.cfg, "sweep"))
    for wl, cfg, family in defaults(base, device, bound):
        pool[cfg.name(wl)] = (wl, cfg, f"{family} default")
    return list(pool.values())


def cudnn_engines(base: Conv2dWorkload, device, helper: CudnnHelper,
                  bound: float) -> tuple[float, str]:
    """cuDNN's fastest correct engine configuration for base (fp16 NHWC), accumulating in fp32,
    or in fp16 where its error is within the candidates' bound: its median us and name."""
    shape = (base.n, base.h, base.w, base.c, base.k)
    stream = torch.cuda.Stream()
    timings = []
    with torch.cuda.stream(stream):
        gen = torch.Generator(device="cuda").manual_seed(0)
        ops = Operands(shape, "fp16", rotation_count(shape, 2, device.l2_bytes), gen)
        for acc, tolerance in (("fp32", BASELINE_TOLERANCE["fp16", "fp16"]), ("fp16", bound)):
            spec = ConvSpec("fp16", "NHWC", "fp16", acc, ENGINES, "any")
            try:
                case = cudnn_engines_case(helper, ops, spec, tolerance, stream, timer())
            except CudnnRefused:
                if acc == "fp32":
                    raise
                continue  # no fp16-accumulating configuration within the bound
            try:
                timings.append((timer().time(case.call, ops.rotate, TIMING)["median_us"],
                                case.notes["config"]))
            finally:
                case.close()
    return min(timings)


def row(base: Conv2dWorkload, pool: list, device, arch: str, log: Path,
        helper: CudnnHelper, bound: float) -> dict:
    """base's pool (sweep) timed against cuDNN's fastest: the best correct candidate and the
    default."""
    timed, torch_us = measure(pool, base, device, arch, log)
    engines_us, engine = cudnn_engines(base, device, helper, bound)
    cudnn_us = min(torch_us, engines_us)
    errors = {r.config: r.rel_l2_err for r in read_records(log)
              if r.workload == base.shape_dict() and r.device == device.name}
    out = {"workload": base.shape_dict(), "device": device.name, "cudnn_us": cudnn_us,
           "cudnn_torch_us": torch_us, "cudnn_engines_us": engines_us, "cudnn_engine": engine,
           "candidates": len(pool), "correct": len(timed)}
    if timed:
        us, wl, cfg, _ = timed[0]
        out["best"] = {"config": cfg.name(wl), "us": us, "speedup": cudnn_us / us,
                       "rel_l2": errors.get(cfg.name(wl))}
    for us, wl, cfg, why in timed:
        if why.endswith("default"):
            out.setdefault("default", {"config": cfg.name(wl), "us": us,
                                       "speedup": cudnn_us / us})
    return out


def table_cells(r: dict) -> list[str]:
    """A row of compute.md: the workload, cuDNN's fastest (of PyTorch's and the engines'), the
    best correct candidate, the default."""
    b, d = r.get("best"), r.get("default")
    best = ([b["config"], f"{b['us']:.1f}", f"{b['speedup']:.2f}x",
             "-" if b.get("rel_l2") is None else f"{b['rel_l2']:.1e}"] if b
            else ["none correct", "-", "-", "-"])
    default = [f"{d['us']:.1f}", f"{d['speedup']:.2f}x"] if d else ["-", "-"]
    return [",".join(map(str, r["workload"].values())), f"{r['cudnn_us']:.1f}",
            f"{r['cudnn_torch_us']:.1f}", f"{r['cudnn_engines_us']:.1f}", *best, *default]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.compute", description=__doc__)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--log", type=Path, required=True, help="tuning log the measurements join")
    p.add_argument("--workloads", nargs="*", help="N,H,W,C,K (default: issue 52's 14 shapes)")
    p.add_argument("--family", default="f23", help="families swept (default f23)")
    p.add_argument("--axis", action="append", default=[],
                   help=f"[FAMILY.]KNOB=V1,V2 over the sweep's ({' '.join(SWEEP)}, of the families "
                        "swept)")
    p.add_argument("--bound", type=float, default=ACCURACY_BAR["fp16"],
                   help="largest relative L2 error a candidate's scheme may have (default: the "
                        "fp16 accuracy bar; 3e-3 admits F(4x4), issue 52's bar)")
    p.add_argument("--stem", default="compute", help="the table's file name: STEM.md, .jsonl")
    args = p.parse_args(argv)
    shapes = ([tuple(int(v) for v in w.split(",")) for w in args.workloads] if args.workloads
              else WORKLOADS)
    swept = [item for item in SWEEP if item.partition(".")[0] in args.family.split(",")]
    axes = Axes.parse(args.family, (2, 4), [*swept, *args.axis])
    device, arch = device_of(0)
    bases = [Conv2dWorkload(*shape, dtype="fp16") for shape in shapes]
    pools = [sweep(base, device, axes, args.bound) for base in bases]
    # every library first, in one parallel build (nvcc is the slow part)
    cache.build_all([(wl, cfg) for pool in pools for wl, cfg, _ in pool], arch)
    rows = []
    with tempfile.TemporaryDirectory(prefix="wino-cudnn-") as helper_dir:
        helper = CudnnHelper(compile_helper(Path(helper_dir), arch))
        for base, pool in zip(bases, pools, strict=True):
            rows.append(row(base, pool, device, arch, args.log, helper, args.bound))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    write_rows(args.out, args.stem, rows,
               f"Compute-bound convolutions on {device.name} (fp16, fp32 accumulation; "
               f"candidates, and cuDNN's fp16-accumulating engines, within relative L2 "
               f"{args.bound:.1e})",
               ("N,H,W,C,K", "cuDNN us", "torch us", "engines us", "best", "us", "speedup",
                "rel L2", "default us", "default speedup"), table_cells)
    return 0


if __name__ == "__main__":
    sys.exit(main())
