"""b- over a- per workload and accumulator (the configs differ):
  python3 compare.py run1/batch.jsonl"""

import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
by: dict[tuple, dict[str, dict]] = {}
for r in rows:
    side, rest = r["artifact"].split("-", 1)
    key = tuple(rest.split("-")[:3])  # workload key, dtype, accumulator
    by.setdefault(key, {})[side] = r
print(f"{len(rows)} artifacts, all correct: {all(r.get('correct') for r in rows)}")
for key, v in sorted(by.items()):
    if "b" in v:
        a, b = v["a"]["median_us"], v["b"]["median_us"]
        r = f" r {a / v['r']['median_us']:.3f}x" if "r" in v else ""
        print(f"{'-'.join(key):40s} a {a:7.1f} us  b {b:7.1f} us  {a / b:.3f}x{r}")
