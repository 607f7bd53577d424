"""Build one side of this folder's A/B, CPU side (README.md):
  python plan.py OUT PREFIX        # int8 (accum fp16) at five workloads, f32 and int8 y (960²
                                   # also fp16 y), with tune_int8_lane/run1's best config and
                                   # the fp16 pick's config at C = 64
  python plan.py OUT PREFIX fp16   # the fp16 picks at those workloads (the reference)"""

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting  # noqa: E402

from wino_tvm.suites import TUNING_LOG  # noqa: E402
from wino_tvm.tune.best import best_config  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402
from wino_tvm.workload import Conv2dWorkload  # noqa: E402

SHAPES = ((1, 224, 224, 64, 64), (1, 448, 448, 64, 64), (1, 960, 960, 64, 64),
          (128, 28, 28, 128, 128), (32, 14, 14, 256, 256))


def best(wl: Conv2dWorkload):
    return best_config(TUNING_LOG, wl, "h100", 2, "full")[0]


def cases(fp16: bool) -> list[Candidate]:
    out = []
    for shape in SHAPES:
        half = Conv2dWorkload(*shape, dtype="fp16", m=2, accum="fp16")
        if fp16:
            out.append(Candidate(half, best(half)))
            continue
        int8 = Conv2dWorkload(*shape, dtype="int8", m=2, accum="fp16")
        configs = [best(int8), *([best(half)] if shape[3] == 64 else [])]
        for y in ("fp32", "int8", *(["fp16"] if shape[1] == 960 else [])):
            out += fitting(dataclasses.replace(int8, out=y), configs)
    return out


if __name__ == "__main__":
    build_plan(cases(sys.argv[3:] == ["fp16"]), Path(sys.argv[1]), H100, prefix=sys.argv[2])
