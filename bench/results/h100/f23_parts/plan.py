"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX   # the F(2, 3) kernel (st3) at the six C >= 128 benchmark
                              # workloads: as in the tree (a-), and in a checkout with
                              # nou.patch (b-: no U copies) or nocopy.patch (c-: no copies)"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]


def cases() -> list[Candidate]:
    return [Candidate(Conv2dWorkload(*shape, dtype="fp16", m=2, accum="fp32"),
                      KernelConfig.f23_config(3))
            for shape in BENCH_WORKLOADS if shape[3] >= 128]


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100, prefix=sys.argv[2])
