"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # N=128 28² C = 128 and 14² C = 256, fp16 accumulators: the pick and
                       # every lane config of the space with TMA copies of 32 channels or
                       # more, for `tune measure`"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Axes, Candidate, config_space
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
AXES = Axes(m=(2,), fusions=("full",), lane_tma=(True,), lane_wgmma=(False, True),
            tb_k=(32, 64, 128))


def cases() -> list[Candidate]:
    out = []
    for shape in ((128, 28, 28, 128, 128), (128, 14, 14, 256, 256)):
        wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum="fp16")
        out.append(Candidate(wl, best_config(TUNING_LOG, wl, "h100", 2, "full")[0]))
        out += [c for c in config_space(wl, H100, AXES)[0] if c.cfg.lane and c.cfg.tma]
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
