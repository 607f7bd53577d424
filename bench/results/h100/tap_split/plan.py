"""Build this folder's device work, CPU side (README.md):
  python plan.py tune OUT   # every C <= 128 case's current full-fusion pick (plain), and the
                            # tap-split lane configs that halve its transform's repeats
  python plan.py probe OUT  # the 960² fp16 tap-split config of the tests: run.sh removes
                            # KTrans's negation of U's tap row 3 in a copy, a negative control
  python plan.py epi OUT    # run 3: the same cases with the epilogue: each one's pick and
                            # run 2's three best tap-split configs of the plain case
  python plan.py ncu OUT    # run 3: 960², fp16 accumulators, mma.sync with 3 buffers of
                            # quarters: 32 channels x 16 taps per warp, and the tap split
  python plan.py wgmma OUT  # run 4: every C <= 128 case, plain and with the epilogue: its
                            # pick and every tap-split config with wgmma
  python plan.py ncu_wgmma OUT  # runs 5-6: 960², fp16 accumulators, the wgmma pick and run
                            # 4's best wgmma tap split, for ncu
  python plan.py narrow OUT # run 7: the tap split with 16 channels per warp, 4 tile groups
                            # or more, at C = 256
                            # (plain and with the epilogue) and C = 128 (plain), and each
                            # case's pick (built at a8551b3, reverted since)
  python plan.py wide OUT   # run 8: every fp16-accumulator C = 64 case, plain and with the
                            # epilogue: its pick and every tap-split config with 64 channels
                            # per warp (mma.sync and wgmma), after their stores' fix"""

import dataclasses
import json
import sys
from collections import defaultdict
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Axes, Candidate, config_space
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]


def pick(wl: Conv2dWorkload) -> Candidate | None:
    found = best_config(TUNING_LOG, wl, "h100", fusion="full")
    return None if found is None else Candidate(dataclasses.replace(wl, m=found[1]["m"]),
                                                found[0])


def halves_the_transform(wl: Conv2dWorkload, cfg: KernelConfig) -> bool:
    """Tap-split configs whose block has twice the channels per warp of today's widest
    16-tap warp at that accumulator (fp16 64 at C = 64, fp32 32 with 2 slices at C = 64, and
    32 at C = 128, where 64 does not fit): those transform each tile half as often."""
    if not (cfg.lane and cfg.tap_split == 2):
        return False
    if wl.c == 64:
        return cfg.tb_n == 64 if wl.accum == "fp16" else cfg.k_split == 2
    return True


def tune() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] <= 128):
        for accum in ("fp16", "fp32"):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            out += [c for c in (pick(wl),) if c is not None]
            out += [c for c in config_space(wl, H100)[0] if halves_the_transform(c.wl, c.cfg)]
    return out


def epi() -> list[Candidate]:
    timed = defaultdict(list)
    for line in (Path(__file__).parent / "run2" / "tune.jsonl").read_text().splitlines():
        r = json.loads(line)
        if "-ts2" in r["config"]:
            timed[(r["workload_key"], r["accum"])].append((r["median_us"], r["config"]))
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] <= 128):
        for accum in ("fp16", "fp32"):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum,
                                epilogue=FULL_EPILOGUES[1])
            out += [c for c in (pick(wl),) if c is not None]
            for _, config in sorted(timed[(wl.key, accum)])[:3]:
                out.append(Candidate(wl, KernelConfig.parse(config)[1]))
    return out


def ncu() -> list[Candidate]:
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="fp16", m=2, accum="fp16")
    return [Candidate(wl, KernelConfig.lane_config(32, 16, 4, 2, 3)),
            Candidate(wl, KernelConfig.lane_config(64, 16, 4, 1, 3, tap_split=2))]


def wgmma() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] <= 128):
        for accum in ("fp16", "fp32"):
            for epilogue in FULL_EPILOGUES:
                wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
                out += [c for c in (pick(wl),) if c is not None]
                out += [c for c in config_space(wl, H100, Axes(lane_wgmma=(True,)))[0]
                        if c.cfg.lane and c.cfg.wgmma and c.cfg.tap_split == 2]
    return out


def narrow() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] in (128, 256)):
        for accum in ("fp16", "fp32"):
            for epilogue in FULL_EPILOGUES if shape[3] == 256 else FULL_EPILOGUES[:1]:
                wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
                out += [c for c in (pick(wl),) if c is not None]
                # the point is more warps per block: 4 tile groups (8 warps) and more
                out += [c for c in config_space(wl, H100)[0] if c.cfg.lane
                        and c.cfg.tap_split == 2 and c.cfg.tb_n == 16 and c.cfg.groups >= 4]
    return out


def wide() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] == 64):
        for epilogue in FULL_EPILOGUES:
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum="fp16", epilogue=epilogue)
            out += [c for c in (pick(wl),) if c is not None]
            out += [c for c in config_space(wl, H100, Axes(lane_wgmma=(False, True)))[0]
                    if c.cfg.lane and c.cfg.tap_split == 2 and c.cfg.tb_n == 64]
    return out


def ncu_wgmma() -> list[Candidate]:
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="fp16", m=2, accum="fp16")
    return [Candidate(wl, KernelConfig.lane_config(32, 32, 4, 2, 2, wgmma=True)),
            Candidate(wl, KernelConfig.lane_config(64, 16, 4, 1, 3, True, 2))]


def probe() -> list[Candidate]:
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="fp16", m=2, accum="fp16")
    return [Candidate(wl, KernelConfig.lane_config(64, 16, 4, 1, 2, tap_split=2))]


if __name__ == "__main__":
    parts = {"tune": tune, "probe": probe, "epi": epi, "ncu": ncu, "wgmma": wgmma,
             "ncu_wgmma": ncu_wgmma, "narrow": narrow, "wide": wide}
    build_plan(parts[sys.argv[1]](), Path(sys.argv[2]), H100)
