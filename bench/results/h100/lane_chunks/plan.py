"""Build this folder's device work, CPU side (README.md):
  python plan.py ab PREFIX OUT   # each C = 64 case's lane pick: run under the commit before the
                                 # chunked staging (old_) and under this one (new_), same names
                                 # but for tb_k (C there, C / 2 here)
  python plan.py tune64 OUT      # C = 64: the pick geometries with every patch staging
  python plan.py tune128 OUT     # C = 128 and 256: the lane space, most tile groups per shape
  python plan.py tune128_st3 OUT # its 3-buffer configs (run 1 measured them with a bug) and
                                 # the picks, for a same-run comparison
  python plan.py ncu OUT         # 960², fp16 accumulators, n32 g4-ks2: halves in 2 buffers
                                 # and quarters in 3 (the new pick), for ncu (run 3)
Each tune plan also holds every case's current full-fusion pick, measured again."""

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
ACCUMS = ("fp16", "fp32")
# accum -> (tb_n, k_split, groups): the C = 64 geometries of ../tune_lane/
LANE_C64 = {"fp16": ((32, 2, 4), (32, 1, 8), (16, 4, 2), (16, 2, 4), (16, 1, 8)),
            "fp32": ((16, 2, 4), (16, 1, 8), (16, 4, 2))}
# (tb_k, stages) besides halves in 2 buffers: quarters in 3, halves in 3, the whole patch in 2
STAGINGS = ((16, 3), (32, 3), (64, 2))


def cases(channels: tuple[int, ...]):
    """(plain workload, its epilogue twin) per benchmark shape with C in channels, accumulator."""
    for shape in (s for s in BENCH_WORKLOADS if s[3] in channels):
        for accum in ACCUMS:
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            yield wl, dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1])


def pick(wl: Conv2dWorkload) -> Candidate | None:
    found = best_config(TUNING_LOG, wl, "h100", fusion="full")
    return None if found is None else Candidate(dataclasses.replace(wl, m=found[1]["m"]),
                                                found[0])


def lane(wl: Conv2dWorkload, tb_n: int, k_split: int, groups: int, tb_k: int,
         stages: int) -> Candidate:
    return Candidate(wl, KernelConfig(16, tb_n, tb_k, *LANE_FRAGMENT, "full", persist=True,
                                      groups=groups, k_split=k_split, lane=True,
                                      stages=stages))


def fits(cand: Candidate) -> bool:
    return not cand.cfg.problems(cand.wl, H100)


def ab() -> list[Candidate]:
    """Each C = 64 case's lane pick, plain and with the epilogue (this tree's log)."""
    out = []
    for wl, epi in cases((64,)):
        out += [c for c in (pick(wl), pick(epi)) if c is not None and c.cfg.lane]
    return out


def tune64() -> list[Candidate]:
    out = []
    for wl, epi in cases((64,)):
        out += [c for c in (pick(wl), pick(epi)) if c is not None]
        for geometry in LANE_C64[wl.accum]:
            out += [c for c in (lane(wl, *geometry, *s) for s in STAGINGS) if fits(c)]
        found = pick(epi)
        if found is not None and found.cfg.lane:
            g = found.cfg
            out += [c for c in (lane(epi, g.tb_n, g.k_split, g.groups, *s) for s in STAGINGS)
                    if fits(c)]
    return out


def tune128() -> list[Candidate]:
    """Per (tb_n, k_split, tb_k, stages) the lane config of the space with the most tile groups;
    with the epilogue, the two with the most warps."""
    out = []
    for wl, epi in cases((128, 256)):
        out += [c for c in (pick(wl), pick(epi)) if c is not None]
        most: dict[tuple, KernelConfig] = {}
        for c in config_space(wl, H100)[0]:
            if c.cfg.lane:
                key = (c.cfg.tb_n, c.cfg.k_split, c.cfg.tb_k, c.cfg.stages)
                if key not in most or c.cfg.groups > most[key].groups:
                    most[key] = c.cfg
        out += [Candidate(wl, cfg) for cfg in most.values()]
        widest = sorted(most.values(), key=lambda cfg: -cfg.groups * cfg.k_split)[:2]
        out += [Candidate(epi, cfg) for cfg in widest]
    return out


def ncu() -> list[Candidate]:
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="fp16", m=2, accum="fp16")
    return [lane(wl, 32, 2, 4, tb_k, stages) for tb_k, stages in ((32, 2), (16, 3))]


if __name__ == "__main__":
    if sys.argv[1] == "ab":
        build_plan(ab(), Path(sys.argv[3]), H100, prefix=sys.argv[2])
    else:
        plans = {"tune64": tune64, "tune128": tune128, "ncu": ncu,
                 "tune128_st3": lambda: [c for c in tune128()
                                         if c.cfg.stages == 3 or not c.cfg.lane]}
        build_plan(plans[sys.argv[1]](), Path(sys.argv[2]), H100)
