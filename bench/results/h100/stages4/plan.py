"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every plain benchmark case whose pick is a lane kernel (both
                       # accumulators): the pick, and with 4 patch buffers the pick and its
                       # 16-channel-chunk form, where they fit; for `tune measure`"""

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/ab_plan.py, tune_cases.py
from ab_plan import lane_picks  # noqa: E402
from tune_cases import H100, fitting  # noqa: E402

from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402


def cases() -> list[Candidate]:
    out = []
    for pick in lane_picks():
        cfg = pick.cfg
        out += fitting(pick.wl, [cfg, dataclasses.replace(cfg, stages=4),
                                 dataclasses.replace(cfg, stages=4, tb_k=16)])
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
