"""Per config: a- (cp.async), b- (unpadded TMA boxes), c- (padded TMA boxes), one batch:
python3 compare.py run1/batch.jsonl"""

import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
sides: dict[str, dict[str, dict]] = {}
for r in rows:
    side, rest = r["artifact"].split("-", 1)
    sides.setdefault(rest.replace("-tma", ""), {})[side] = r
print(f"{len(rows)} artifacts, all correct: {all(r.get('correct') for r in rows)}; "
      "median us of a (cp.async), b (unpadded TMA), c (padded TMA); b and c over a")
for rest, v in sorted(sides.items()):
    a, b, c = (v[s]["median_us"] for s in "abc")
    short = rest.replace("-m2-tbm16-", "-").replace("-frag16x8x16-full-vec16-pad16-pb", "")
    print(f"{short:70s} {a:7.1f} {b:7.1f} {c:7.1f}  b {a / b:.3f}x  c {a / c:.3f}x")
