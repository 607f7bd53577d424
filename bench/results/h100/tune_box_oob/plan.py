"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every C = 64 benchmark case (both accumulators, plain and with the
                       # epilogue): its pick and its four fastest wgmma lane configs in the
                       # tuning log, each with its TMA twin where that fits, for `tune measure`"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting, logged_cases  # noqa: E402

from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

WGMMA_PER_CASE = 4


def cases() -> list[Candidate]:
    out = []
    for wl, configs in logged_cases(channels=64):
        wgmma = [c for c in configs if c.lane and c.wgmma][:WGMMA_PER_CASE]
        twins = [c.with_(tma=True) for c in wgmma]
        out += fitting(wl, [configs[0], *wgmma, *twins])
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
