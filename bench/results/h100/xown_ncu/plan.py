"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # the N=1 448² fp32-accumulator pick with and without exchange_own"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

WL = Conv2dWorkload(1, 448, 448, 64, 64, dtype="fp16", m=2, accum="fp32")
PICK = KernelConfig.lane_config(32, 64, 4, 1, 2, True, 2, True, True)

if __name__ == "__main__":
    build_plan([Candidate(WL, PICK), Candidate(WL, PICK.with_(exchange_own=False))],
               Path(sys.argv[1]), KNOWN_DEVICES["h100"])
