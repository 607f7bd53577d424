"""Build the tuning sweep of M staged in rounds and blocks per SM for ptxas (int8), CPU side: per
benchmark workload the int8 pick's tiling, 16/64/64 with U from L2, with 1 or 2 OTrans channels
and (m_rounds, min_blocks) in ROUNDS_BLOCKS, one `tune measure` batch (the mr1 ones repeat the
current picks in the same run).

python bench/results/h100/tune_m_rounds/plan.py .gpu/tmr
"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

PICK = dict(tb_m=16, tb_n=64, tb_k=64, fusion="full", u_smem=False)
ROUNDS_BLOCKS = ((1, 0), (2, 0), (2, 4), (2, 5))


def candidates() -> list[Candidate]:
    return [Candidate(Conv2dWorkload(*shape, dtype="int8", accum="int32", m=2),
                      KernelConfig(**PICK, ot_channels=oc, m_rounds=rounds, min_blocks=blocks))
            for shape in BENCH_WORKLOADS for oc in (1, 2) for rounds, blocks in ROUNDS_BLOCKS]


if __name__ == "__main__":
    build_plan(candidates(), Path(sys.argv[1]), KNOWN_DEVICES["h100"])
