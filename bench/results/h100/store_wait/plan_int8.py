"""Build one side of run 2 of this folder's A/B (README.md), CPU side, with the checkout whose
wino_tvm is on PYTHONPATH: python plan_int8.py OUT PREFIX. The tuned int8 lane pick (int8 in,
fp16 accumulators) of every C = 64 benchmark workload, with an fp32 and an int8 y."""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload


def int8_lane_picks() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] == 64):
        for y in ("fp32", "int8"):
            wl = Conv2dWorkload(*shape, dtype="int8", m=2, accum="fp16", out=y)
            found = best_config(TUNING_LOG, wl, "h100", 2, "full")
            if found and found[0].lane:
                out.append(Candidate(wl, found[0]))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python plan_int8.py OUT PREFIX")
    build_plan(int8_lane_picks(), Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
