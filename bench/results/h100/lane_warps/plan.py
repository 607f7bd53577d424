"""Build the A/B of lane blocks with 10-12 warps (16 channels per warp, fp16 accumulators: 142
registers) against each C = 64 workload's current lane pick, same run.

python bench/results/h100/lane_warps/plan.py .gpu/lane_warps
"""

import sys
from pathlib import Path

from wino_tvm.config import LANE_FRAGMENT, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_batch
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

# (tb_n, k_split, groups): 12, 12 and 10 warps
WIDE = ((16, 4, 3), (16, 2, 6), (16, 1, 10))


def candidates() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] == 64):
        wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum="fp16")
        cfg, _ = best_config(TUNING_LOG, wl, "h100", fusion="full")
        out.append(Candidate(wl, cfg))
        out += [Candidate(wl, KernelConfig(16, tb_n, 64, *LANE_FRAGMENT, "full", persist=True,
                                           groups=groups, k_split=k_split, lane=True))
                for tb_n, k_split, groups in WIDE]
    return out


if __name__ == "__main__":
    entries = build_batch(candidates(), Path(sys.argv[1]), "sm_90")
    sys.exit(0 if all(e.built for e in entries) else 1)
