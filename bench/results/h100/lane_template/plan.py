"""Build the first device run of the generated lane-layout kernel (templates/lane_layout.cu):
correctness over both accumulators, the epilogue, ragged and C = 128 shapes, and a same-run
A/B at N=1 C=K=64 224² and 960² against the hand kernel of ../lane_layout/ (spliced into the
generated artifact's harness by that folder's make.py) and the tuned sync-free pick.

python bench/results/h100/lane_template/plan.py .gpu/lane_template
"""

import sys
from pathlib import Path

from wino_tvm.config import LANE_FRAGMENT, KernelConfig
from wino_tvm.tune.builder import build_batch
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

ALL = ("bias", "residual", "relu")
PICK = KernelConfig(32, 32, 64, fusion="full", persist=True, k_split=2, ot_channels=2)


def lane(tb_n: int, k_split: int, groups: int, c: int) -> KernelConfig:
    return KernelConfig(16, tb_n, c, *LANE_FRAGMENT, "full", persist=True, groups=groups,
                        k_split=k_split, lane=True)


# (shape, accum, epilogue, (tb_n, k_split, groups))
CASES = (
    ((1, 224, 224, 64, 64), "fp16", (), (32, 2, 4)),
    ((1, 224, 224, 64, 64), "fp32", (), (16, 2, 4)),
    ((1, 960, 960, 64, 64), "fp16", (), (32, 2, 4)),
    ((1, 960, 960, 64, 64), "fp16", (), (32, 1, 8)),
    ((1, 960, 960, 64, 64), "fp16", (), (16, 4, 2)),
    ((1, 960, 960, 64, 64), "fp32", (), (16, 2, 4)),
    ((1, 960, 960, 64, 64), "fp32", (), (16, 1, 8)),
    ((1, 960, 960, 64, 64), "fp16", ALL, (32, 2, 4)),
    ((1, 960, 960, 64, 64), "fp32", ALL, (16, 2, 4)),
    ((32, 56, 56, 64, 64), "fp16", (), (32, 2, 4)),
    ((32, 56, 56, 64, 64), "fp32", ("bias", "relu"), (16, 2, 4)),
    ((32, 28, 28, 128, 128), "fp16", (), (16, 1, 4)),
    ((32, 28, 28, 128, 128), "fp16", (), (32, 1, 2)),
    ((32, 28, 28, 128, 128), "fp32", ALL, (16, 1, 4)),
    ((3, 7, 9, 64, 64), "fp16", ("residual",), (32, 2, 4)),
    ((2, 7, 9, 128, 64), "fp32", ("bias", "relu"), (16, 1, 4)),
)


def candidates() -> list[Candidate]:
    out = [Candidate(Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue),
                     lane(*knobs, shape[3]))
           for shape, accum, epilogue, knobs in CASES]
    for size in (224, 960):
        out.append(Candidate(Conv2dWorkload(1, size, size, 64, 64, dtype="fp16", m=2,
                                            accum="fp16"), PICK))
    return out


if __name__ == "__main__":
    entries = build_batch(candidates(), Path(sys.argv[1]), "sm_90")
    sys.exit(0 if all(e.built for e in entries) else 1)
