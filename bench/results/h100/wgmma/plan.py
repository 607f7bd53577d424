"""Build this folder's device work, CPU side (README.md):
  python plan.py tune OUT   # every C <= 256 case's current full-fusion pick, and lane configs
                            # with wgmma beside it (same run)
  python plan.py probe OUT  # the 960² fp16 pick with wgmma: run.sh swaps U's descriptor
                            # strides in a copy, a negative control for the correctness check
  python plan.py ab PREFIX OUT  # runs 2 and 5: run 1's best wgmma geometries at C = 64
                            # (fp16 accumulators, and fp32 at 960²), built under run 1's
                            # template (old_) and under the change (new_), same names
  python plan.py epi OUT    # run 3: the epilogue cases at C <= 128 with halves in 2 buffers
                            # (run 1 swept them with quarters only), and each case's pick
  python plan.py ncu OUT    # run 3: 960², fp16 accumulators: the mma.sync pick and the
                            # wgmma one, for ncu
  python plan.py picks PREFIX OUT  # run 4: every C <= 256 case's lane pick (mma.sync or
                            # wgmma), built under 4113257 (old_) and under the per-slice loop
                            # (new_), same names"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, LANE_WARP_CHANNELS, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
ACCUMS = ("fp16", "fp32")
# (tb_k, stages): quarters of C = 64 in 3 buffers (the mma.sync picks), halves in 2
STAGINGS = ((16, 3), (32, 2))


def pick(wl: Conv2dWorkload) -> Candidate | None:
    found = best_config(TUNING_LOG, wl, "h100", fusion="full")
    return None if found is None else Candidate(dataclasses.replace(wl, m=found[1]["m"]),
                                                found[0])


def wgmma_configs(wl: Conv2dWorkload, groups: tuple[int, ...], widest: bool) -> list[Candidate]:
    """wgmma lane configs that fit: every warp width (or the widest), 1 or 2 channel slices."""
    widths = LANE_WARP_CHANNELS[wl.accum][-1:] if widest else LANE_WARP_CHANNELS[wl.accum]
    out = []
    for tb_n in widths:
        for k_split in (1, 2):
            for g in groups:
                for tb_k, stages in STAGINGS:
                    cand = Candidate(wl, KernelConfig.lane_config(tb_n, tb_k, g, k_split, stages,
                                                                  wgmma=True))
                    if not cand.cfg.problems(wl, H100):
                        out.append(cand)
    return out


def tune() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] <= 256):
        for accum in ACCUMS:
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            epi = dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1])
            out += [c for c in (pick(wl), pick(epi)) if c is not None]
            out += wgmma_configs(wl, (4, 8, 12), widest=False)
            out += [c for c in wgmma_configs(epi, (4, 8), widest=True) if c.cfg.tb_k == 16]
    return out


def ab() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] == 64):
        wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum="fp16")
        out += [Candidate(wl, KernelConfig.lane_config(32, tb_k, groups, k_split, stages,
                                                       wgmma=True))
                for tb_k, groups, k_split, stages in ((32, 4, 2, 2), (32, 8, 1, 2),
                                                      (16, 4, 2, 3))]
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="fp16", m=2, accum="fp32")
    return out + [Candidate(wl, KernelConfig.lane_config(16, 32, 4, 2, 2, wgmma=True))]


def epi() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] <= 128):
        for accum in ACCUMS:
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum,
                                epilogue=FULL_EPILOGUES[1])
            found = pick(wl)
            out += [found] if found is not None else []
            out += [c for c in wgmma_configs(wl, (4, 8), widest=True) if c.cfg.tb_k == 32]
    return out


def ncu() -> list[Candidate]:
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="fp16", m=2, accum="fp16")
    return [Candidate(wl, KernelConfig.lane_config(32, tb_k, 4, 2, stages, wgmma=wgmma))
            for tb_k, stages, wgmma in ((16, 3, False), (32, 2, True))]


def picks() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] <= 256):
        for accum in ACCUMS:
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            for case in (wl, dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1])):
                found = pick(case)
                out += [found] if found is not None and found.cfg.lane else []
    return out


def probe() -> list[Candidate]:
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="fp16", m=2, accum="fp16")
    return [Candidate(wl, KernelConfig.lane_config(32, 16, 4, 2, 3, wgmma=True))]


if __name__ == "__main__":
    if sys.argv[1] in ("ab", "picks"):
        build_plan({"ab": ab, "picks": picks}[sys.argv[1]](), Path(sys.argv[3]), H100,
                   prefix=sys.argv[2])
        sys.exit()
    plans = {"tune": tune, "probe": probe, "epi": epi, "ncu": ncu}
    build_plan(plans[sys.argv[1]](), Path(sys.argv[2]), H100)
