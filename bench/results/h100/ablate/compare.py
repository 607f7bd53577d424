"""Print each ablation's speed over its a0 (same batch): python3 compare.py run1/batch.jsonl"""

import json
import sys
from collections import defaultdict

SHORT = ("-m2-tbm16-", "-frag16x8x16-full-vec16-pad16-pb")

times: dict[str, dict[str, float]] = defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line)
    variant, rest = r["artifact"].split("-", 1)
    for s in SHORT:
        rest = rest.replace(s, "-")
    times[rest][variant] = r["median_us"]
variants = sorted({v for t in times.values() for v in t} - {"a0"})
print(f"{'pick':70s} {'a0 us':>7s} " + " ".join(f"{v:>13s}" for v in variants))
for rest, t in sorted(times.items()):
    cells = " ".join(f"{t[v]:6.1f} {t['a0'] / t[v]:5.2f}x" if v in t else f"{'-':>13s}"
                     for v in variants)
    print(f"{rest:70s} {t['a0']:7.1f} {cells}")
