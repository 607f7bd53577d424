"""Build the tuning batch that re-measures the configs whose OTrans rows went alpha apart
(../ot_rows_ab/), CPU side: for every benchmark workload and case (fp16 with fp16 / fp32
accumulators, with and without the bias+residual+relu epilogue; int8), where the change touches
a logged full config within NEAR_BEST of the case's best: the logged best (the baseline,
changed or not) and those changed configs.
Reads tuning_logs/h100.jsonl as it stood at this run (2843 lines).

python bench/results/h100/tune_ot_rows/plan.py .gpu/tune_or
"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

NEAR_BEST = 1.15
CASES = (("fp16", "fp16", ((), FULL_EPILOGUES[1])), ("fp16", "fp32", ((), FULL_EPILOGUES[1])),
         ("int8", "int32", ((),)))


def candidates() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out: list[Candidate] = []
    for shape in BENCH_WORKLOADS:
        for dtype, accum, epilogues in CASES:
            for epilogue in epilogues:
                probe = Conv2dWorkload(*shape, dtype=dtype, accum=accum, epilogue=epilogue)
                found = sorted(matching(records, probe, "h100", fusion="full"),
                               key=lambda r: r.median_us)
                if not found:
                    continue
                near = [r for r in found if r.median_us <= NEAR_BEST * found[0].median_us]
                cands = [Candidate(dataclasses.replace(probe, m=r.m), r.kernel_config())
                         for r in near]
                changed = [c for c in cands if c.cfg.ot_row_step(c.wl) != 1]
                if changed:
                    out += changed if changed[0] is cands[0] else [cands[0], *changed]
    return out


def main(out: str) -> None:
    build_plan(candidates(), Path(out), KNOWN_DEVICES["h100"])


if __name__ == "__main__":
    main(*sys.argv[1:])
