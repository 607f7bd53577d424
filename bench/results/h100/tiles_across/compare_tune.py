"""Best config per tuned case before and after a re-tuning run's records were appended to the
shipped log: python3 compare_tune.py FOLDER RUN BEFORE AFTER (from the repo root's PYTHONPATH;
TVM-free). RUN is the run's records in FOLDER; the log's first BEFORE lines are the log the run
started from, its first AFTER lines the log with the run's appended records, so later sessions'
records change nothing here. Used by ../tiles_across/ and ../whole_tiles_chunked/ (their
README.md give the arguments).
"""

import json
import sys
from pathlib import Path

from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.records import Record
from wino_tvm.workload import Conv2dWorkload

LOG = Path(__file__).resolve().parents[4] / "tuning_logs" / "h100.jsonl"
folder, run_name, before_lines, after_lines = sys.argv[1:]
log = LOG.read_text().splitlines()
appended = set(log[int(before_lines):int(after_lines)])
run_lines = (Path(folder) / run_name).read_text().splitlines()
run = [Record.from_json(line) for line in run_lines]
before = latest([Record.from_json(line) for line in log[:int(before_lines)]])
after = latest([Record.from_json(line) for line in log[:int(after_lines)]])
left_out = [r for line, r in zip(run_lines, run, strict=True) if line not in appended]
if left_out:
    print(f"{len(run)} records, {len(run) - len(left_out)} appended; not appended:")
    for r in left_out:
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
