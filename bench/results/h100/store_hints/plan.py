"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX   # the tuned pick of every C = 64 benchmark workload (fp16 and fp32
                              # accumulators, plain and with the epilogue; all TMA wgmma lane
                              # kernels but two), built by the checkout this runs in: ddb2090
                              # (a-), s.patch (s-), p.patch (p-)"""

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
    for shape in (s for s in BENCH_WORKLOADS if s[3] == 64):
        for accum in ("fp16", "fp32"):
            for epilogue in FULL_EPILOGUES:
                wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
                found = best_config(TUNING_LOG, wl, "h100", 2, "full")
                if found and found[0].lane:
                    out.append(Candidate(wl, found[0]))
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
