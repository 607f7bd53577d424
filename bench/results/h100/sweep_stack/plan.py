"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every stacked lane config of the space (wgmma, TMA, 4 tile groups) for
                       # the plain fp16-accumulator cases at N=1 224²-960², for `tune measure`"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, stacked_space  # noqa: E402

from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402
from wino_tvm.workload import Conv2dWorkload  # noqa: E402


def cases() -> list[Candidate]:
    out = []
    for size in (224, 448, 640, 960):
        wl = Conv2dWorkload(1, size, size, 64, 64, dtype="fp16", m=2, accum="fp16")
        out += stacked_space(wl)
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
