"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # the fp16-accumulator lane picks at C = 128 and 256, for ncu"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload


def picks() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] in (128, 256)):
        wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum="fp16")
        cfg, record = best_config(TUNING_LOG, wl, "h100", fusion="full")
        out.append(Candidate(dataclasses.replace(wl, m=record["m"]), cfg))
    return [c for c in out if c.cfg.lane]


if __name__ == "__main__":
    build_plan(picks(), Path(sys.argv[1]), KNOWN_DEVICES["h100"])
