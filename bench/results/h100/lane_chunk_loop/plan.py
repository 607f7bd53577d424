"""Build this folder's device work, CPU side (README.md):
  python plan.py ab PREFIX OUT  # run 1: every lane pick at C = 128 and 256 (both accumulators,
                                # plain and with the epilogue), built under 8a47db4 (old_: the
                                # chunk loop unrolled) and under the rolled loop (new_)
  python plan.py tune OUT       # run 2: C = 256, every lane config of the tuner's space with
                                # 16 chunks (now rolled) and each case's current pick"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate, config_space
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]


def cases(channels: tuple[int, ...]):
    """Each benchmark shape with C in channels: both accumulators, plain and with the epilogue."""
    for shape in (s for s in BENCH_WORKLOADS if s[3] in channels):
        for accum in ("fp16", "fp32"):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            yield wl
            yield dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1])


def pick(case: Conv2dWorkload) -> Candidate | None:
    found = best_config(TUNING_LOG, case, "h100", fusion="full")
    return None if found is None else Candidate(dataclasses.replace(case, m=found[1]["m"]),
                                                found[0])


def picks() -> list[Candidate]:
    return [c for c in map(pick, cases((128, 256))) if c is not None and c.cfg.lane]


def tune() -> list[Candidate]:
    out = []
    for case in cases((256,)):
        out += [c for c in (pick(case),) if c is not None]
        # only the configs whose code changed: more than 8 chunks
        out += [c for c in config_space(case, H100)[0] if c.cfg.lane and c.wl.c // c.cfg.tb_k > 8]
    return out


if __name__ == "__main__":
    if sys.argv[1] == "ab":
        build_plan(picks(), Path(sys.argv[3]), H100, prefix=sys.argv[2])
    else:
        build_plan(tune(), Path(sys.argv[2]), H100)
