"""Best config per tuned case before and after appending tune_wtc.jsonl to the shipped log (the
log's records of commit 24281db are this run's), and which records were appended:
python3 compare_tune.py (from the repo root's PYTHONPATH; TVM-free).

Not appended: the 32/x/64 configs with several chunks, whose warps took two rounds of whole
tiles at 24281db; since b0759b4 those kernels keep the warp cases again (two rounds spilled).
"""

import json
from pathlib import Path

from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.records import read_records
from wino_tvm.workload import Conv2dWorkload

HERE = Path(__file__).parent
LOG = HERE.parents[3] / "tuning_logs" / "h100.jsonl"
COMMIT = "24281db"


def reverted(r) -> bool:
    """Whether the record measured a kernel the builds no longer produce (two rounds)."""
    cfg = r.kernel_config()
    return cfg.tb_m * cfg.tb_k > 4 * 256 and cfg.tb_k < r.workload["C"]


run = read_records(HERE / "tune_wtc.jsonl")
kept = [r for r in run if not reverted(r)]
names = {(r.workload_key, r.config, r.epilogue) for r in run}
everything = [r for r in read_records(LOG) if (r.workload_key, r.config, r.epilogue) not in names
              or r.commit != COMMIT]
before = latest(everything)
after = latest(everything + kept)
print(f"{len(run)} records, {len(kept)} appended; not appended (two rounds, reverted):")
for r in run:
    if reverted(r):
        print(f"  {r.workload_key} {r.config} {r.epilogue or '-'} {r.median_us:.1f} us")
cases = sorted({(json.dumps(r.workload, sort_keys=True), r.dtype, r.accum, r.epilogue)
                for r in run})
print(f"{'case':<58} {'before us':>9} {'after us':>9} {'gain':>6}  after config")
for shape, dtype, accum, epilogue in cases:
    w = json.loads(shape)
    wl = Conv2dWorkload(w["N"], w["H"], w["W"], w["C"], w["K"], dtype=dtype, accum=accum,
                        epilogue=tuple(op for op in epilogue.split(",") if op))
    old = min(matching(before, wl, "h100", fusion="full"), key=lambda r: r.median_us)
    new = min(matching(after, wl, "h100", fusion="full"), key=lambda r: r.median_us)
    case = f"{wl.key} {dtype}/{accum}{' +epi' if epilogue else ''}"
    print(f"{case:<58} {old.median_us:9.1f} {new.median_us:9.1f} "
          f"{old.median_us / new.median_us:5.2f}x  {new.config}")
