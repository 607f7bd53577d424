"""Build the re-tuning batch after tiles across images (CPU side, TVM), one process (TVM is
imported once):
- for each benchmark workload with N > 1, each dtype/accumulator (and the fp16 whole epilogue
  where the log has tuned it), the logged configs that the per-image padding slowed down: the
  best TOP logged configs of each (m, tb_m) whose images padded their tiles (the others'
  kernels did not change);
- for the N=1 C=K=64 workloads, the fp16 whole epilogue on the TOP_EPILOGUE fastest configs
  without it (their epilogue records predate whole tiles and two OTrans channels, or are
  missing).

Also the same-run A/B's new side: every bench_full variant whose images padded their tiles,
built today (the old side is the de76fb8 build of ../bench_full/).

Both read tuning_logs/h100.jsonl: the run used its first 2234 lines (before this run's records
were appended); today's log gives other picks.

python bench/results/h100/tiles_across/plan.py tune .gpu/tune_ta
python bench/results/h100/tiles_across/plan.py ab .gpu/ta_ab   # new_<artifact> folders
"""

import dataclasses
import sys
from itertools import groupby
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG, bench_full
from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

TOP = 2
TOP_EPILOGUE = 4
CASES = (("fp16", "fp32", ()), ("fp16", "fp16", ()), ("fp16", "fp32", FULL_EPILOGUES[1]),
         ("fp16", "fp16", FULL_EPILOGUES[1]), ("int8", "int32", ()))


def was_padded(wl: Conv2dWorkload, tb_m: int) -> bool:
    """Whether the old layout padded each image's tiles (only then did the kernel change)."""
    return wl.tiles_per_image % tb_m != 0


def candidates() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out = []
    for shape in BENCH_WORKLOADS:
        if shape[0] == 1:
            continue
        for dtype, accum, epilogue in CASES:
            wl = Conv2dWorkload(*shape, dtype=dtype, accum=accum, epilogue=epilogue)
            found = sorted(matching(records, wl, "h100", fusion="full"),
                           key=lambda r: (r.m, r.kernel_config().tb_m, r.median_us))
            for (m, tb_m), group in groupby(found, key=lambda r: (r.m, r.kernel_config().tb_m)):
                case = dataclasses.replace(wl, m=m)
                if was_padded(case, tb_m):
                    out += [Candidate(case, r.kernel_config()) for r in list(group)[:TOP]]
    return out


def epilogue_candidates() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out = []
    for shape in BENCH_WORKLOADS:
        if shape[0] != 1:
            continue
        for accum in ("fp32", "fp16"):
            plain = Conv2dWorkload(*shape, dtype="fp16", accum=accum)
            found = sorted(matching(records, plain, "h100", fusion="full"),
                           key=lambda r: r.median_us)[:TOP_EPILOGUE]
            out += [Candidate(dataclasses.replace(plain, m=r.m, epilogue=FULL_EPILOGUES[1]),
                              r.kernel_config()) for r in found]
    return out


def ab_variants() -> list[Candidate]:
    return [Candidate(wl, cfg) for wl, cfg in bench_full()
            if wl.n > 1 and was_padded(wl, cfg.tb_m)]


def main(mode: str, out: str) -> None:
    todo = candidates() + epilogue_candidates() if mode == "tune" else ab_variants()
    build_plan(todo, Path(out), KNOWN_DEVICES["h100"], prefix=None if mode == "tune" else "new_")


if __name__ == "__main__":
    main(*sys.argv[1:])
