"""Build the tuning sweep of the lane-layout kernel (KernelConfig.lane) over the benchmark
workloads it takes (fp16, C <= 128), CPU side: per C = 64 workload and accumulator the
geometries of LANE_C64 (with the whole epilogue those of LANE_C64_EPILOGUE), per C = 128
workload every lane config of the tuner's space (with the epilogue LANE_C128_EPILOGUE), and
each case's current pick without the epilogue, measured again in the same run. Reads
tuning_logs/h100.jsonl as it stood at this run.

python bench/results/h100/tune_lane/plan.py .gpu/tune_lane
"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, LANE_FRAGMENT, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate, config_space
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
# accum -> (tb_n, k_split, groups): the most tile groups that fit for each warp width and split
LANE_C64 = {"fp16": ((32, 2, 4), (32, 1, 8), (16, 4, 2), (16, 2, 4), (16, 1, 8)),
            "fp32": ((16, 2, 4), (16, 1, 8), (16, 4, 2))}
LANE_C64_EPILOGUE = {"fp16": ((32, 2, 4), (16, 4, 2)), "fp32": ((16, 2, 4), (16, 4, 2))}
LANE_C128_EPILOGUE = {"fp16": ((16, 1, 4), (16, 2, 2)), "fp32": ((16, 1, 4),)}


def lane(wl: Conv2dWorkload, tb_n: int, k_split: int, groups: int) -> Candidate:
    return Candidate(wl, KernelConfig(16, tb_n, wl.c, *LANE_FRAGMENT, "full", persist=True,
                                      groups=groups, k_split=k_split, lane=True))


def candidates() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] <= 128):
        for accum in ("fp16", "fp32"):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            epi = dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1])
            found = best_config(TUNING_LOG, wl, "h100", fusion="full")
            if found is not None:
                cfg, record = found
                out.append(Candidate(dataclasses.replace(wl, m=record["m"]), cfg))
            if wl.c == 64:
                out += [lane(wl, *knobs) for knobs in LANE_C64[accum]]
                out += [lane(epi, *knobs) for knobs in LANE_C64_EPILOGUE[accum]]
            else:
                out += [c for c in config_space(wl, H100)[0] if c.cfg.lane]
                out += [lane(epi, *knobs) for knobs in LANE_C128_EPILOGUE[accum]]
    return out


if __name__ == "__main__":
    build_plan(candidates(), Path(sys.argv[1]), H100)
