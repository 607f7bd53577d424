"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every plain benchmark case whose pick is a lane kernel (both
                       # accumulators): the pick, and with 4 patch buffers the pick and its
                       # 16-channel-chunk form, where they fit; for `tune measure`"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]


def cases() -> list[Candidate]:
    out = []
    for shape in BENCH_WORKLOADS:
        for accum in ("fp16", "fp32"):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            found = best_config(TUNING_LOG, wl, "h100", 2, "full")
            if found is None or not found[0].lane:
                continue
            pick = found[0]
            configs = [pick, dataclasses.replace(pick, stages=4),
                       dataclasses.replace(pick, stages=4, tb_k=16)]
            out += [Candidate(wl, c) for c in dict.fromkeys(configs)
                    if not c.problems(wl, H100)]
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
