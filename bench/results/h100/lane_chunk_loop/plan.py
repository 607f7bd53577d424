"""Build this folder's device work, CPU side (README.md):
  python plan.py PREFIX OUT   # every lane pick at C = 128 and 256 (both accumulators, plain and
                              # with the epilogue), built under 8a47db4 (old_: the chunk loop
                              # unrolled) and under the rolled loop (new_), same names"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload


def picks() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] in (128, 256)):
        for accum in ("fp16", "fp32"):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            for case in (wl, dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1])):
                found = best_config(TUNING_LOG, case, "h100", fusion="full")
                if found is not None and found[0].lane:
                    out.append(Candidate(dataclasses.replace(case, m=found[1]["m"]), found[0]))
    return out


if __name__ == "__main__":
    build_plan(picks(), Path(sys.argv[2]), KNOWN_DEVICES["h100"], prefix=sys.argv[1])
