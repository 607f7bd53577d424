"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every stacked lane config of the space (wgmma, TMA, 4 tile groups) for
                       # the fp32-accumulator C = 64 cases, plain and with the epilogue, at the
                       # sizes where a stack covers the image (not 56²), for `tune measure`"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, logged_cases, stacked_space  # noqa: E402

from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402


def cases() -> list[Candidate]:
    out = []
    for wl, _ in logged_cases(channels=64):
        if wl.accum == "fp32" and wl.h % 16 == 0:
            out += stacked_space(wl)
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
