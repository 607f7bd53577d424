"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX   # the tuned lane pick of every benchmark workload (fp16 and fp32
                              # accumulators, no epilogue) and two ragged wgmma TMA configs,
                              # built by the checkout this runs in: d820c89 (a-), the
                              # multicast change (m-)"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/ab_plan.py
from ab_plan import lane_picks  # noqa: E402

from wino_tvm.config import KNOWN_DEVICES, KernelConfig  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402
from wino_tvm.workload import Conv2dWorkload  # noqa: E402

RAGGED = (
    (Conv2dWorkload(3, 7, 9, 64, 64, dtype="fp16", m=2, accum="fp16"),
     KernelConfig.lane_config(64, 32, 4, 1, 2, True, 2, True)),
    (Conv2dWorkload(3, 7, 9, 64, 64, dtype="fp16", m=2, accum="fp32",
                    epilogue=("bias", "residual", "relu")),
     KernelConfig.lane_config(32, 64, 4, 1, 2, True, 2, True)),
)


def cases() -> list[Candidate]:
    return [Candidate(wl, cfg) for wl, cfg in RAGGED] + lane_picks()


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
