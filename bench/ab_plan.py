"""The device work of a same-run A/B (bench/ab_run.sh), built on the CPU by the checkout whose
wino_tvm is on PYTHONPATH (one side per checkout):
  python bench/ab_plan.py OUT PREFIX   # the tuned lane pick of every benchmark workload,
                                       # fp16 and fp32 accumulators, no epilogue
PREFIX names the side with its dash (a-, b-, ...): bench/ab_compare.py splits names there."""

import sys
from collections.abc import Iterable
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload


def lane_picks(workloads: Iterable[Conv2dWorkload] | None = None) -> list[Candidate]:
    """The tuning log's lane pick per workload, where it is one (default: every benchmark
    workload in fp16 with either accumulator)."""
    if workloads is None:
        workloads = (Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
                     for shape in BENCH_WORKLOADS for accum in ("fp16", "fp32"))
    out = []
    for wl in workloads:
        found = best_config(TUNING_LOG, wl, "h100", 2, "full")
        if found and found[0].lane:
            out.append(Candidate(wl, found[0]))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python bench/ab_plan.py OUT PREFIX")
    build_plan(lane_picks(), Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
