"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every benchmark workload as int8 on the lane kernel (accum fp16, f32 y):
                       # the six fastest logged configs of its fp16-accumulator fp16 case, and
                       # the stacked configs with three patch buffers (int8 patches take half
                       # the memory), where they fit"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting, logged_cases  # noqa: E402

from wino_tvm.config import KernelConfig  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402
from wino_tvm.workload import Conv2dWorkload  # noqa: E402

FASTEST = 6
STACKED_ST3 = [KernelConfig.lane_config(tb_n, tb_k, 4, k_split, 3, True, tap_split, True,
                                        stack=True)
               for tb_n, tb_k, k_split, tap_split in ((32, 64, 2, 1), (32, 32, 2, 1),
                                                      (64, 32, 1, 2))]


def cases() -> list[Candidate]:
    out = []
    for wl, configs in logged_cases():
        if wl.accum != "fp16" or wl.epilogue:
            continue
        int8 = Conv2dWorkload(wl.n, wl.h, wl.w, wl.c, wl.k, dtype="int8", m=2, accum="fp16")
        lane = [c for c in configs if c.lane][:FASTEST]
        out += fitting(int8, lane + STACKED_ST3)
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
