"""Best config per tuned case before and after appending tune_ta.jsonl to the shipped log (the
log's records of commit a7ca6c7 are this run's): python3 compare_tune.py (from the repo root's
PYTHONPATH; TVM-free)."""

import json
from pathlib import Path

from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.records import read_records
from wino_tvm.workload import Conv2dWorkload

HERE = Path(__file__).parent
LOG = HERE.parents[3] / "tuning_logs" / "h100.jsonl"
run = read_records(HERE / "tune_ta.jsonl")
names = {(r.workload_key, r.config, r.epilogue) for r in run}
everything = [r for r in read_records(LOG) if (r.workload_key, r.config, r.epilogue) not in names
              or r.commit != "a7ca6c7"]
before = latest(everything)
after = latest(everything + run)
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
