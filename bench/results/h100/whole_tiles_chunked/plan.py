"""Build the same-run A/B and the re-tuning batch of whole input tiles in chunked kernels (CPU
side, TVM, one process):
- ab: every bench_full variant whose full kernel is fp16 m=2 with several channel chunks
  (TB_K < C, not persistent), built today as new_<artifact> (the old side is the 31c5d58 build
  of ../bench_full/, copied as old_<artifact>);
- tune: for every benchmark workload, fp16 accumulator and epilogue case the log has, the TOP
  fastest logged m=2 configs with several channel chunks (the kernels the change rewrites).

Both read tuning_logs/h100.jsonl as it stood at this run (2436 lines).

python bench/results/h100/whole_tiles_chunked/plan.py ab .gpu/wtc_ab
python bench/results/h100/whole_tiles_chunked/plan.py tune .gpu/tune_wtc
"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG, bench_full
from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

TOP = 2
CASES = (("fp32", ()), ("fp16", ()), ("fp32", FULL_EPILOGUES[1]), ("fp16", FULL_EPILOGUES[1]))


def chunked(wl: Conv2dWorkload, cfg: KernelConfig) -> bool:
    """Whether the pipeline now gives this kernel whole input tiles per channel chunk."""
    return wl.dtype == "fp16" and wl.m == 2 and not cfg.persist and cfg.tb_k < wl.c


def candidates() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out = []
    for shape in BENCH_WORKLOADS:
        for accum, epilogue in CASES:
            wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
            found = sorted((r for r in matching(records, wl, "h100", fusion="full")
                            if r.m == 2 and chunked(wl, r.kernel_config())),
                           key=lambda r: r.median_us)
            out += [Candidate(wl, r.kernel_config()) for r in found[:TOP]]
    return out


def ab_variants() -> list[Candidate]:
    return [Candidate(wl, cfg) for wl, cfg in bench_full() if chunked(wl, cfg)]


def main(mode: str, out: str) -> None:
    todo = candidates() if mode == "tune" else ab_variants()
    build_plan(todo, Path(out), KNOWN_DEVICES["h100"], prefix=None if mode == "tune" else "new_")


if __name__ == "__main__":
    main(*sys.argv[1:])
