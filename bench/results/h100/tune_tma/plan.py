"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every C = 64 benchmark case (both accumulators, plain and with the
                       # epilogue): its pick and the TMA twins of it and of its two fastest
                       # wgmma configs in the tuning log, for `tune measure`"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]


def cases() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] == 64):
        for accum in ("fp16", "fp32"):
            for epilogue in FULL_EPILOGUES:
                wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
                found = sorted(matching(records, wl, "h100", 2, "full"), key=lambda r: r.median_us)
                pick = KernelConfig.parse(found[0].config)[1]
                wgmma = [KernelConfig.parse(r.config)[1] for r in found
                         if "-lane-wg" in r.config][:2]
                twins = [c.with_(tma=True) for c in dict.fromkeys([pick, *wgmma]) if c.lane]
                out += [Candidate(wl, c) for c in dict.fromkeys([pick, *twins])
                        if not c.problems(wl, H100)]
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
