"""Build one side of run 2 of this folder's A/B (README.md), CPU side, with the checkout whose
wino_tvm is on PYTHONPATH: python plan_int8.py OUT PREFIX. The tuned int8 lane pick (int8 in,
fp16 accumulators) of every C = 64 benchmark workload, with an fp32 and an int8 y."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/ab_plan.py
from ab_plan import lane_picks  # noqa: E402

from wino_tvm.config import KNOWN_DEVICES  # noqa: E402
from wino_tvm.suites import BENCH_WORKLOADS  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.workload import Conv2dWorkload  # noqa: E402

INT8_WORKLOADS = [Conv2dWorkload(*shape, dtype="int8", m=2, accum="fp16", out=y)
                  for shape in BENCH_WORKLOADS if shape[3] == 64 for y in ("fp32", "int8")]

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python plan_int8.py OUT PREFIX")
    build_plan(lane_picks(INT8_WORKLOADS), Path(sys.argv[1]), KNOWN_DEVICES["h100"],
               prefix=sys.argv[2])
