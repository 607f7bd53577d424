"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH:
  python plan.py OUT PREFIX   # the lane picks of every benchmark workload as int8 with an int8 y
                              # (the changed path), and as controls the int8 f32-y and the fp16
                              # lane picks at N=1 448²-960²
  python plan.py OUT ncu      # the 960² int8-y pick alone, for ncu (bench/ncu_run.sh)"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/ab_plan.py
from ab_plan import lane_picks  # noqa: E402

from wino_tvm.config import KNOWN_DEVICES  # noqa: E402
from wino_tvm.suites import BENCH_WORKLOADS  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.workload import Conv2dWorkload  # noqa: E402


def cases():
    int8_y = [Conv2dWorkload(*shape, dtype="int8", m=2, accum="fp16", out="int8")
              for shape in BENCH_WORKLOADS]
    controls = [Conv2dWorkload(1, side, side, 64, 64, dtype=dtype, m=2, accum="fp16", out=out)
                for side in (448, 640, 960) for dtype, out in (("int8", "fp32"), ("fp16", ""))]
    return lane_picks(int8_y + controls)


if __name__ == "__main__":
    chosen, prefix = cases(), sys.argv[2]
    if prefix == "ncu":
        chosen, prefix = [c for c in chosen if c.wl.h == 960 and c.wl.out == "int8"], "ncu-"
    build_plan(chosen, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=prefix)
