"""Build the tuning batch that re-measures the configs the magic-number rounding and the input
pipeline changed (../round_pipeline_ab/), CPU side: for every benchmark workload and case (fp16
with fp16 / fp32 accumulators, with and without the bias+residual+relu epilogue; int8), the
logged best (the baseline, changed or not) and the TOP fastest logged full configs the changes
touch, where there are any (int8: all, every m; fp16: persistent ones that now pipeline their
input).
Reads tuning_logs/h100.jsonl as it stood at this run (2672 lines).

python bench/results/h100/tune_round_pipeline/plan.py .gpu/tune_rp
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

TOP = 4
CASES = (("fp16", "fp16", ((), FULL_EPILOGUES[1])), ("fp16", "fp32", ((), FULL_EPILOGUES[1])),
         ("int8", "int32", ((),)))


def touched(probe: Conv2dWorkload, record) -> bool:
    """Whether either change rewrote the record's kernel."""
    wl = dataclasses.replace(probe, m=record.m)
    return wl.dtype == "int8" or record.kernel_config().pipelines_input(wl)


def candidates() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out: list[Candidate] = []
    for shape in BENCH_WORKLOADS:
        for dtype, accum, epilogues in CASES:
            for epilogue in epilogues:
                probe = Conv2dWorkload(*shape, dtype=dtype, accum=accum, epilogue=epilogue)
                found = sorted(matching(records, probe, "h100", fusion="full"),
                               key=lambda r: r.median_us)

                changed = [r for r in found if touched(probe, r)][:TOP]
                picked = changed if not changed or changed[0] is found[0] else found[:1] + changed
                out += [Candidate(dataclasses.replace(probe, m=r.m), r.kernel_config())
                        for r in picked]
    return out


def main(out: str) -> None:
    build_plan(candidates(), Path(out), KNOWN_DEVICES["h100"])


if __name__ == "__main__":
    main(*sys.argv[1:])
