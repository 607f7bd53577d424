"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every C = 64 benchmark case (both accumulators, plain and with the
                       # epilogue): its pick, its four fastest TMA lane configs of 4 tile groups
                       # in the tuning log, and the stacked twin of its six fastest lane configs
                       # of 4 tile groups (TMA on, xown off: a stack keeps its exchange its own),
                       # where they fit, for `tune measure`"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting, logged_cases  # noqa: E402

from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

TMA_PER_CASE, STACKED_PER_CASE = 4, 6


def cases() -> list[Candidate]:
    out = []
    for wl, configs in logged_cases(channels=64):
        four = [c for c in configs if c.lane and c.groups == 4]
        tma = [c for c in four if c.tma][:TMA_PER_CASE]
        stacked = [c.with_(tma=True, exchange_own=False, stack=True)
                   for c in four[:STACKED_PER_CASE]]
        out += fitting(wl, [configs[0], *tma, *stacked])
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
