"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH:
  python plan.py OUT PREFIX   # the logged F(2, 3) pick of the six C >= 128 workloads, plain and
                              # with the whole epilogue"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting, logged_cases  # noqa: E402

from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402


def cases() -> list[Candidate]:
    return [c for wl, configs in logged_cases() if wl.c >= 128 and wl.accum == "fp32"
            for c in fitting(wl, configs[:1])]


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100, prefix=sys.argv[2])
