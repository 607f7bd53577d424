"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH:
  python plan.py OUT PREFIX   # the logged picks of the six C >= 128 workloads: fp16 (plain and
                              # with the whole epilogue) and int8 on the F(2, 3) kernel (f32 y
                              # and int8 y)"""

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting, logged_cases  # noqa: E402

from wino_tvm.suites import TUNING_LOG  # noqa: E402
from wino_tvm.tune.best import best_config  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402

if __name__ == "__main__":
    chosen = []
    for wl, logged in logged_cases():
        if wl.c < 128 or wl.accum != "fp32":
            continue
        chosen += fitting(wl, logged[:1])
        if wl.epilogue:
            continue
        for out in ("fp32", "int8"):
            int8 = dataclasses.replace(wl, dtype="int8", out=out)
            found = best_config(TUNING_LOG, int8, "h100", 2, "full")
            chosen += fitting(int8, [found[0]] if found else [])
    build_plan(chosen, Path(sys.argv[1]), H100, prefix=sys.argv[2])
