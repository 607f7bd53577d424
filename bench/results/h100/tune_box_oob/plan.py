"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # every C = 64 benchmark case (both accumulators, plain and with the
                       # epilogue): its pick and its four fastest wgmma lane configs in the
                       # tuning log, each with its TMA twin where that fits, for `tune measure`"""

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
WGMMA_PER_CASE = 4


def cases() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out = []
    for shape in BENCH_WORKLOADS:
        if shape[3] != 64:
            continue
        for accum in ("fp16", "fp32"):
            for epilogue in FULL_EPILOGUES:
                wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
                found = sorted(matching(records, wl, "h100", 2, "full"), key=lambda r: r.median_us)
                configs = [KernelConfig.parse(r.config)[1] for r in found]
                wgmma = [c for c in configs if c.lane and c.wgmma][:WGMMA_PER_CASE]
                twins = [c.with_(tma=True) for c in wgmma]
                out += [Candidate(wl, c) for c in dict.fromkeys([configs[0], *wgmma, *twins])
                        if not c.problems(wl, H100)]
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
