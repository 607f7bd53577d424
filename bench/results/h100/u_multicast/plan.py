"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX   # the tuned lane pick of every benchmark workload (fp16 and fp32
                              # accumulators, no epilogue) and two ragged wgmma TMA configs,
                              # built by the checkout this runs in: d820c89 (a-), the
                              # multicast change (m-)"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

RAGGED = (
    (Conv2dWorkload(3, 7, 9, 64, 64, dtype="fp16", m=2, accum="fp16"),
     KernelConfig.lane_config(64, 32, 4, 1, 2, True, 2, True)),
    (Conv2dWorkload(3, 7, 9, 64, 64, dtype="fp16", m=2, accum="fp32",
                    epilogue=("bias", "residual", "relu")),
     KernelConfig.lane_config(32, 64, 4, 1, 2, True, 2, True)),
)


def cases() -> list[Candidate]:
    out = [Candidate(wl, cfg) for wl, cfg in RAGGED]
    for shape in BENCH_WORKLOADS:
        for accum in ("fp16", "fp32"):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            found = best_config(TUNING_LOG, wl, "h100", 2, "full")
            if found is not None and found[0].lane:
                out.append(Candidate(wl, found[0]))
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
