"""Build the same-run A/B and the re-tuning batch of whole input tiles in int8 full kernels (CPU
side, TVM, one process):
- ab: every bench_full variant whose full kernel is int8 m=2 and now takes whole tiles, built
  today as new_<artifact> (the old side is the 3d37e7f build of ../bench_full/, copied as
  old_<artifact>);
- tune: for every benchmark workload the TOP fastest logged int8 m=2 full configs that now take
  whole tiles.

Both read tuning_logs/h100.jsonl as it stood at this run (2507 lines).

python bench/results/h100/whole_tiles_int8/plan.py ab .gpu/wti_ab
python bench/results/h100/whole_tiles_int8/plan.py tune .gpu/tune_wti
"""

import sys
from pathlib import Path

from reconstructor.whole_tiles import CHUNKED_TILE_BYTES
from wino_tvm.config import KNOWN_DEVICES, WARP_SIZE, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG, bench_full
from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

TOP = 3
INT8_CHANNELS_PER_THREAD = 4  # ITrans loads 4 int8 channels at a time
INT8_TILE_BYTES = 16 * INT8_CHANNELS_PER_THREAD  # one trip's input tile per thread


def whole(wl: Conv2dWorkload, cfg: KernelConfig) -> bool:
    """Whether the pipeline now gives this int8 kernel whole input tiles."""
    trips = cfg.tb_m * cfg.tb_k // (WARP_SIZE * INT8_CHANNELS_PER_THREAD)
    rounds = -(-trips // wl.alpha)
    return (wl.dtype == "int8" and wl.m == 2 and cfg.fusion == "full" and trips >= 2
            and (cfg.tb_k == wl.c or rounds * INT8_TILE_BYTES <= CHUNKED_TILE_BYTES))


def candidates() -> list[Candidate]:
    records = latest(read_records(TUNING_LOG))
    out = []
    for shape in BENCH_WORKLOADS:
        wl = Conv2dWorkload(*shape, dtype="int8", m=2)
        found = sorted((r for r in matching(records, wl, "h100", fusion="full")
                        if r.m == 2 and whole(wl, r.kernel_config())),
                       key=lambda r: r.median_us)
        out += [Candidate(wl, r.kernel_config()) for r in found[:TOP]]
    return out


def ab_variants() -> list[Candidate]:
    return [Candidate(wl, cfg) for wl, cfg in bench_full() if whole(wl, cfg)]


def main(mode: str, out: str) -> None:
    todo = candidates() if mode == "tune" else ab_variants()
    build_plan(todo, Path(out), KNOWN_DEVICES["h100"], prefix=None if mode == "tune" else "new_")


if __name__ == "__main__":
    main(*sys.argv[1:])
