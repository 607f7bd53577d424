"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX  # every benchmark case whose tuned pick is a lane kernel (plain,
                             # both accumulators; with the epilogue, fp16), built by the
                             # checkout this runs in, each folder named PREFIX + name: run
                             # at 101af15 (a-) and at 7c96d4b (e-)"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]


def cases() -> list[Candidate]:
    out = []
    for shape in BENCH_WORKLOADS:
        for accum, epilogue in (("fp16", ()), ("fp32", ()), ("fp16", FULL_EPILOGUES[1])):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
            found = best_config(TUNING_LOG, wl, "h100", fusion="full")
            if found is not None and found[0].lane:
                out.append(Candidate(dataclasses.replace(wl, m=found[1]["m"]), found[0]))
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100, prefix=sys.argv[2])
