"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every benchmark case (both accumulators, plain and with the epilogue):
                       # its pick and its three fastest tap-split lane configs in the tuning
                       # log, each with its exchange_own twin where that fits, for `tune measure`"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting, logged_cases  # noqa: E402

from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

SPLITS_PER_CASE = 3


def cases() -> list[Candidate]:
    out = []
    for wl, configs in logged_cases():
        splits = [c for c in configs if c.lane and c.tap_split == 2][:SPLITS_PER_CASE]
        if not splits:
            continue
        twins = [c.with_(exchange_own=True) for c in splits]
        out += fitting(wl, [configs[0], *splits, *twins])
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
