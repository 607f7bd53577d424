"""Build this folder's device work, CPU side (README.md), with variants.patch applied to the
template:
  python plan.py OUT   # the lane pick of every benchmark workload (fp16 accumulators; fp32
                       # too at 960², N=128 28² and 14²), built once as a0-*; run.sh makes
                       # the ablations a1 (no transform), a2 (no MMA), a3 (no input copies)
                       # and a5 (neither transform nor copies) by editing copies of program.cu
  python plan.py OUT copies   # run 2: six of those picks, for the copies' variants a4 (an
                              # L2-resident source) and a6 (no wait for the copies to land)"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
FP32_TOO = {(1, 960), (128, 28), (128, 14)}


COPIES = {(1, 960, "fp16"), (1, 960, "fp32"), (1, 448, "fp16"), (128, 56, "fp16"),
          (128, 28, "fp16"), (128, 14, "fp16")}


def cases() -> list[Candidate]:
    out = []
    for shape in BENCH_WORKLOADS:
        for accum in ("fp16", "fp32") if shape[:2] in FP32_TOO else ("fp16",):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            found = best_config(TUNING_LOG, wl, "h100", 2, "full")
            if found is not None and found[0].lane:
                out.append(Candidate(wl, found[0]))
    return out


if __name__ == "__main__":
    chosen = cases()
    if sys.argv[2:] == ["copies"]:
        chosen = [c for c in chosen if (c.wl.n, c.wl.h, c.wl.accum) in COPIES]
    build_plan(chosen, Path(sys.argv[1]), H100, prefix="a0-")
