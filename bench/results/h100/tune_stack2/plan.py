"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # the fp16-accumulator C = 64 cases sweep_stack/ did not run (N=8
                       # 224², 56², and every size with the epilogue): the six fastest stacked
                       # configs of sweep_stack/run1 at 640² and 960², where they fit"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting, logged_cases  # noqa: E402

from wino_tvm.config import KernelConfig  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

STACKED = [KernelConfig.lane_config(tb_n, tb_k, 4, k_split, stages, True, tap_split, True,
                                    stack=True)
           for tb_n, tb_k, k_split, stages, tap_split in (
               (32, 64, 2, 2, 1), (32, 64, 1, 3, 1), (32, 32, 2, 3, 1), (64, 32, 1, 2, 2),
               (32, 64, 1, 2, 1), (64, 16, 1, 3, 2))]


def cases() -> list[Candidate]:
    out = []
    for wl, _ in logged_cases(channels=64):
        if wl.accum != "fp16" or (wl.n == 1 and not wl.epilogue):
            continue  # fp32 accumulators: tbn32 needs the tap split; N=1 plain: sweep_stack/
        out += fitting(wl, STACKED)
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
