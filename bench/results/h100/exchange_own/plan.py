"""Build this folder's run-2 device work, CPU side (README.md):
  python plan.py OUT PREFIX   # every benchmark case (both accumulators, plain and with the
                              # epilogue) whose pick is a tap-split lane kernel, built by the
                              # checkout this runs in: ddb2090 (a-), split.patch (y-)"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload


def cases() -> list[Candidate]:
    out = []
    for shape in BENCH_WORKLOADS:
        for accum in ("fp16", "fp32"):
            for epilogue in FULL_EPILOGUES:
                wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
                found = best_config(TUNING_LOG, wl, "h100", 2, "full")
                if found and found[0].lane and found[0].tap_split == 2:
                    out.append(Candidate(wl, found[0]))
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
