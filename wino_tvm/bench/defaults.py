"""How good the no-tuning choice is: per workload, the runtime's default kernel against the
H100 log's tuned pick and cuDNN, in one process on this GPU (PyTorch; GPU side).

python -m wino_tvm.bench.defaults --out bench/h200/defaults [--workloads 1,720,1280,64,64 ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from ..math.tolerance import ACCURACY_BAR
from ..runtime.choice import defaults, logged
from ..runtime.dispatch import device_of
from ..runtime.select import measure
from ..workload import Conv2dWorkload
from .report import write_rows
from .suites import BENCH_WORKLOADS, TUNING_LOG

# Shapes no log holds: a 720p frame and VGG's 112^2 x 128 (the untuned examples of the issue).
UNTUNED = ((1, 720, 1280, 64, 64), (1, 112, 112, 128, 128), (1, 1080, 1920, 64, 64))


def compare(shape: tuple[int, ...], log: Path) -> dict:
    limits, arch = device_of(0)
    base = Conv2dWorkload(*shape, dtype="fp16")
    bound = ACCURACY_BAR["fp16"]
    pool = {}
    default = defaults(base, limits, bound)
    if default:
        pool["default"] = default[0]
    tuned = logged(base, dataclasses.replace(limits, name="H100"), bound, [log])
    if tuned:
        wl, cfg, record = tuned[0]
        pool["tuned_h100"] = (wl, cfg, f"H100 log {record.median_us:.1f} us")
    timed, cudnn_us = measure(list(pool.values()), base, limits, arch, None)
    row = {"workload": base.shape_dict(), "device": limits.name, "cudnn_us": cudnn_us}
    for label, (wl, cfg, _) in pool.items():
        hits = [us for us, w, c, _ in timed if c.name(w) == cfg.name(wl)]
        row[label] = {"config": cfg.name(wl), "us": hits[0] if hits else None}
    if row.get("default", {}).get("us") and row.get("tuned_h100", {}).get("us"):
        row["default_over_tuned"] = row["default"]["us"] / row["tuned_h100"]["us"]
    if row.get("default", {}).get("us"):
        row["default_speedup"] = cudnn_us / row["default"]["us"]
    return row


def table_cells(r: dict) -> list[str]:
    """A row of defaults.md: the workload, the default, the tuned pick, cuDNN."""
    d, t = r.get("default", {}), r.get("tuned_h100", {})

    def us(part: dict) -> str:
        return f"{part['us']:.1f}" if part.get("us") else "-"
    ratio = f"{r['default_over_tuned']:.2f}" if "default_over_tuned" in r else "-"
    speed = f"{r['default_speedup']:.2f}x" if "default_speedup" in r else "-"
    return [",".join(map(str, r["workload"].values())), d.get("config", "-"), us(d),
            t.get("config", "-"), us(t), ratio, f"{r['cudnn_us']:.1f}", speed]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.defaults", description=__doc__)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--workloads", nargs="*", help="N,H,W,C,K (default: the benchmark's 13 and "
                                                  "three untuned ones)")
    args = p.parse_args(argv)
    shapes = ([tuple(int(v) for v in w.split(",")) for w in args.workloads] if args.workloads
              else [*BENCH_WORKLOADS, *UNTUNED])
    rows = []
    for shape in shapes:
        rows.append(compare(shape, TUNING_LOG))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    write_rows(args.out, "defaults", rows, f"No-tuning defaults on {rows[0]['device']}",
               ("N,H,W,C,K", "default", "us", "tuned (H100 log)", "us", "default / tuned",
                "cuDNN us", "default speedup"), table_cells)
    return 0


if __name__ == "__main__":
    sys.exit(main())
