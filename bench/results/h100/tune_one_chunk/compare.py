"""Each case's candidates against its current pick (the first config plan.py lists for it),
same run: python3 compare.py > compare.txt"""

import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))
sys.path.insert(0, str(HERE))
import plan  # noqa: E402

picks = {}
for cand in plan.candidates():
    case = (cand.wl.key, cand.wl.dtype, cand.wl.accum)
    picks.setdefault(case, cand.cfg.name(cand.wl))
cases = defaultdict(dict)
for line in open(HERE / "tune_oc.jsonl"):
    r = json.loads(line)
    cases[(r["workload_key"], r["dtype"], r["accum"])][r["config"]] = r
for case, pick in picks.items():
    rows = cases[case]
    base = rows[pick]["median_us"]
    print(f"{' '.join(case)}: pick {pick} {base:.1f} us")
    for name, r in sorted(rows.items(), key=lambda kv: kv[1]["median_us"]):
        print(f"  {base / r['median_us']:.3f}x {r['median_us']:7.1f} us  rel_l2 "
              f"{r['rel_l2_err']:.2e}  {name.split('-m2-')[1]}")
