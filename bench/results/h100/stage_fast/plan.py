"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX  # every benchmark case whose tuned pick is a lane kernel (plain,
                             # both accumulators; with the epilogue, fp16), built by the
                             # checkout this runs in, each folder named PREFIX + name: run
                             # once at 3e5d2c3 (a-) and once after the staging change (b-)
  python plan.py OUT retune  # run 5: every C = 64 case (both accumulators, plain and with
                             # the epilogue): its pick and the three fastest wgmma configs
                             # in the tuning log, for `tune measure`"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config, latest, matching
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]


def cases() -> list[Candidate]:
    out = []
    for shape in BENCH_WORKLOADS:
        for accum, epilogue in (("fp16", ()), ("fp32", ()), ("fp16", FULL_EPILOGUES[1])):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
            found = best_config(TUNING_LOG, wl, "h100", fusion="full")
            if found is not None and found[0].lane:
                out.append(Candidate(dataclasses.replace(wl, m=found[1]["m"]), found[0]))
    return out


def retune() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] == 64):
        for accum in ("fp16", "fp32"):
            for epilogue in FULL_EPILOGUES:
                wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
                found = sorted(matching(records, wl, "h100", 2, "full"), key=lambda r: r.median_us)
                wgmma = [r for r in found if "-lane-wg" in r.config][:3]
                configs = dict.fromkeys(r.config for r in found[:1] + wgmma)
                out += [Candidate(wl, KernelConfig.parse(c)[1]) for c in configs]
    return out


if __name__ == "__main__":
    if sys.argv[2] == "retune":
        build_plan(retune(), Path(sys.argv[1]), H100)
    else:
        build_plan(cases(), Path(sys.argv[1]), H100, prefix=sys.argv[2])
