"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # N=128 14² C = 256 fp16: the pick (cp.async copies) and its TMA twin"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]

if __name__ == "__main__":
    wl = Conv2dWorkload(128, 14, 14, 256, 256, dtype="fp16", m=2, accum="fp16")
    pick = best_config(TUNING_LOG, wl, "h100", 2, "full")[0]
    build_plan([Candidate(wl, pick), Candidate(wl, pick.with_(tma=True))], Path(sys.argv[1]),
               H100, prefix="p-")
