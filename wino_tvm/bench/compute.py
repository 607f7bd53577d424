"""The compute-bound benchmark: per workload (C, K >= 128, large images), a sweep of the template
families' spaces and their no-tuning defaults against cuDNN in one process on this GPU, each
measurement appended to a tuning log (PyTorch; GPU side).

python -m wino_tvm.bench.compute --out bench/h200/compute --log tuning_logs/h200.jsonl \
    [--workloads 1,256,256,256,256 ...] [--axis f23.strip=0,16 ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..math.tolerance import ACCURACY_BAR
from ..runtime import cache
from ..runtime.choice import defaults, schemes
from ..runtime.dispatch import device_of
from ..runtime.select import measure
from ..tune.records import read_records
from ..tune.space import Axes, config_space
from ..workload import Conv2dWorkload
from .report import write_rows

# Issue 52's shapes: SD-VAE decoder layers at 512^2 and 1024^2 output, VGG-16 at N=1 and 8,
# ResNet at N=128.
VAE = ((1, 128, 128, 512, 512), (1, 256, 256, 256, 256), (1, 512, 512, 128, 128),
       (1, 256, 256, 512, 512), (1, 512, 512, 256, 256), (1, 1024, 1024, 128, 128))
VGG = tuple((n, s, s, c, c) for n in (1, 8) for s, c in ((112, 128), (56, 256), (28, 512)))
RESNET = ((128, 28, 28, 128, 128), (128, 14, 14, 256, 256))
WORKLOADS = (*VAE, *VGG, *RESNET)
# The sweep's default axes: large images have tiles for every SM, so no stream-K.
SWEEP = ("f23.c_split=1,2", "f23.stream_k=0", "f23.compact_rows=0", "f23.row_pairs=0")


def sweep(base: Conv2dWorkload, device, axes: Axes) -> list:
    """The pool measure() times: every scheme within the accuracy bar's candidates of the
    families' spaces, then the defaults (those not already there)."""
    pool = {}
    for wl in schemes(base, ACCURACY_BAR[base.dtype]):
        for cand in config_space(wl, device, Axes(axes.families, (wl.m,), axes.knobs))[0]:
            pool.setdefault(cand.cfg.name(cand.wl), (cand.wl, cand.cfg, "sweep"))
    for wl, cfg, family in defaults(base, device, ACCURACY_BAR[base.dtype]):
        pool[cfg.name(wl)] = (wl, cfg, f"{family} default")
    return list(pool.values())


def row(base: Conv2dWorkload, pool: list, device, arch: str, log: Path) -> dict:
    """base's pool (sweep) timed against cuDNN: the best correct candidate and the default."""
    timed, cudnn_us = measure(pool, base, device, arch, log)
    errors = {r.config: r.rel_l2_err for r in read_records(log)
              if r.workload == base.shape_dict() and r.device == device.name}
    out = {"workload": base.shape_dict(), "device": device.name, "cudnn_us": cudnn_us,
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
    """A row of compute.md: the workload, cuDNN, the best correct candidate, the default."""
    b, d = r.get("best"), r.get("default")
    best = ([b["config"], f"{b['us']:.1f}", f"{b['speedup']:.2f}x",
             "-" if b.get("rel_l2") is None else f"{b['rel_l2']:.1e}"] if b
            else ["none correct", "-", "-", "-"])
    default = [f"{d['us']:.1f}", f"{d['speedup']:.2f}x"] if d else ["-", "-"]
    return [",".join(map(str, r["workload"].values())), f"{r['cudnn_us']:.1f}", *best, *default]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.compute", description=__doc__)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--log", type=Path, required=True, help="tuning log the measurements join")
    p.add_argument("--workloads", nargs="*", help="N,H,W,C,K (default: issue 52's 14 shapes)")
    p.add_argument("--family", default="f23", help="families swept (default f23)")
    p.add_argument("--axis", action="append", default=[],
                   help=f"[FAMILY.]KNOB=V1,V2 over the sweep's ({' '.join(SWEEP)})")
    args = p.parse_args(argv)
    shapes = ([tuple(int(v) for v in w.split(",")) for w in args.workloads] if args.workloads
              else WORKLOADS)
    axes = Axes.parse(args.family, (2, 4), [*SWEEP, *args.axis])
    device, arch = device_of(0)
    bases = [Conv2dWorkload(*shape, dtype="fp16") for shape in shapes]
    pools = [sweep(base, device, axes) for base in bases]
    # every library first, in one parallel build (nvcc is the slow part)
    cache.build_all([(wl, cfg) for pool in pools for wl, cfg, _ in pool], arch)
    rows = []
    for base, pool in zip(bases, pools, strict=True):
        rows.append(row(base, pool, device, arch, args.log))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    write_rows(args.out, "compute", rows,
               f"Compute-bound convolutions on {device.name} (fp16, fp32 accumulation)",
               ("N,H,W,C,K", "cuDNN us", "best", "us", "speedup", "rel L2", "default us",
                "default speedup"), table_cells)
    return 0


if __name__ == "__main__":
    sys.exit(main())
