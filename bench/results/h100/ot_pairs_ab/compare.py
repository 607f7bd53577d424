"""Pair old_*/new_* records of an A/B's ab.jsonl: time ratio and error per config
(python3 compare.py [FOLDER], default this folder; ../tiles_across/ uses it too)."""

import json
import statistics
import sys
from pathlib import Path

folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
rows = {}
for line in (folder / "ab.jsonl").read_text().splitlines():
    r = json.loads(line)
    side, name = r["artifact"].split("_", 1)
    rows.setdefault(name, {})[side] = r
speedups = []
print(f"{'config':<100} {'old us':>8} {'new us':>8} {'speedup':>8} {'old err':>9} {'new err':>9}")
for name, pair in sorted(rows.items()):
    old, new = pair["old"], pair["new"]
    assert old["correct"] and new["correct"], name
    s = old["median_us"] / new["median_us"]
    speedups.append(s)
    short = name.replace("-frag16x16x16-full-vec16-pad16", "")
    print(f"{short:<100} {old['median_us']:8.1f} {new['median_us']:8.1f} {s:7.3f}x "
          f"{old['rel_l2_err']:9.2e} {new['rel_l2_err']:9.2e}")
print(f"{len(speedups)} pairs, all correct; speedup min {min(speedups):.3f}x, median "
      f"{statistics.median(speedups):.3f}x, max {max(speedups):.3f}x")
