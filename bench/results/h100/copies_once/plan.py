"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX   # every benchmark case whose tuned pick is a lane kernel (plain,
                              # both accumulators; with the epilogue, fp16), plus the best
                              # mma.sync lane config of each plain C = 64 case, built by the
                              # checkout this runs in, each folder named PREFIX + name: once
                              # at d3b702a (a-) and once with the copies worked out once per
                              # tile group (b-)"""

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
    records = latest(read_records(TUNING_LOG))
    out = []
    for shape in BENCH_WORKLOADS:
        for accum, epilogue in (("fp16", ()), ("fp32", ()), ("fp16", FULL_EPILOGUES[1])):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
            found = best_config(TUNING_LOG, wl, "h100", 2, "full")
            if found is None or not found[0].lane:
                continue
            configs = [found[0]]
            if shape[3] == 64 and not epilogue:
                sync = [r for r in matching(records, wl, "h100", 2, "full")
                        if "-lane-" in r.config and "-wg" not in r.config]
                if sync:
                    best = min(sync, key=lambda r: r.median_us)
                    configs.append(KernelConfig.parse(best.config)[1])
            out += [Candidate(wl, c) for c in dict.fromkeys(configs)]
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100, prefix=sys.argv[2])
