"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX   # the C = 128 and C = 256 picks (N=32 and N=128, both
                              # accumulators): as picked (a-, at 9262d6d) and, in a checkout
                              # with variant.patch, their TMA twins with unpadded boxes (b-)"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]


def cases(tma: bool) -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] in (128, 256)):
        for accum in ("fp16", "fp32"):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            pick = best_config(TUNING_LOG, wl, "h100", 2, "full")[0]
            if pick.lane and not pick.wgmma:
                cfg = pick.with_(tma=True) if tma else pick
                if not cfg.problems(wl, H100):
                    out.append(Candidate(wl, cfg))
    return out


if __name__ == "__main__":
    build_plan(cases(sys.argv[2] == "b-"), Path(sys.argv[1]), H100, prefix=sys.argv[2])
