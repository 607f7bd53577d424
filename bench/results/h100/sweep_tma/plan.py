"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # N=1 960², fp16 accumulators: the pick, and every lane
                       # config of the tuner's space with TMA: wgmma with 32- or 64-channel
                       # chunks, mma.sync with 64 (where TMA won, ../tma_stage/), for
                       # `tune measure`"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Axes, Candidate, config_space
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
AXES = Axes(m=(2,), fusions=("full",), lane_tma=(True,), lane_wgmma=(False, True), tb_k=(32, 64))


def cases() -> list[Candidate]:
    out = []
    for size in (960,):
        wl = Conv2dWorkload(1, size, size, 64, 64, dtype="fp16", m=2, accum="fp16")
        pick = best_config(TUNING_LOG, wl, "h100", 2, "full")[0]
        out.append(Candidate(wl, pick))
        out += [c for c in config_space(wl, H100, AXES)[0]
                if c.cfg.lane and c.cfg.tma and (c.cfg.wgmma or c.cfg.tb_k == 64)
                and c.cfg != pick]
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
