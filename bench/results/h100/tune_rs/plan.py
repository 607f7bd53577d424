"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # the benchmark's C >= 128 and 56² workloads, plain and with the whole
                       # epilogue: the F(2, 3) kernel in every config that fits (ring depth,
                       # C split, persistent blocks), beside the logged pick of each accumulator
                       # (the same run's baseline)"""

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, picks_beside  # noqa: E402

from wino_tvm.config import F23_STAGES, KernelConfig  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

F23 = [KernelConfig.f23_config(stages, c_split, persist) for stages, c_split, persist in
       itertools.product(F23_STAGES, (1, 2), (False, True)) if not (persist and c_split > 1)]


def cases() -> list[Candidate]:
    # fitting() drops the F(2, 3) configs from the fp16-accumulator cases (fp32 only)
    return picks_beside(F23, lambda wl: wl.c >= 128 or wl.h == 56)


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
