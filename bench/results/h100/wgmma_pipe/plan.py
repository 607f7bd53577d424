"""Build this folder's device work, CPU side (README.md), with variants.patch applied to the
template:
  python plan.py OUT   # per C = 64 case: the pick, the best wgmma tap split and the best
                       # wgmma kernel without the split (tuning log), built once as v00-*;
                       # run.sh makes the variants v10 (commit per tap row, wait<1>), v01
                       # (n64 as two n32) and v11 by editing copies of program.cu"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
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
        for accum in ("fp16", "fp32") if shape[0] == 1 and shape[1] in (224, 960) else ("fp16",):
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
            found = [r for r in matching(records, wl, "h100", 2, "full")]
            chosen = {min(found, key=lambda r: r.median_us).config}
            for wanted in (lambda c: "-wg" in c and "-ts2" in c,
                           lambda c: "-wg" in c and "-ts2" not in c):
                some = [r for r in found if wanted(r.config)]
                if some:
                    chosen.add(min(some, key=lambda r: r.median_us).config)
            out += [Candidate(wl, KernelConfig.parse(c)[1]) for c in sorted(chosen)]
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100, prefix="v00-")
