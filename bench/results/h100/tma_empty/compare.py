"""Each b- artifact's speed over its a- twin (one batch): python3 compare.py run1/batch.jsonl"""

import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
pairs: dict[str, dict[str, dict]] = {}
for r in rows:
    side, rest = r["artifact"].split("-", 1)
    pairs.setdefault(rest, {})[side] = r
print(f"{len(rows)} artifacts, all correct: {all(r.get('correct') for r in rows)}; "
      "median us of a- and b-, speed b over a, b's rel. L2 error")
for rest, v in sorted(pairs.items()):
    a, b = v["a"], v["b"]
    short = rest.replace("-m2-tbm16-", "-").replace("-frag16x8x16-full-vec16-pad16-pb", "")
    print(f"{short:85s} {a['median_us']:7.1f} {b['median_us']:7.1f} "
          f"{a['median_us'] / b['median_us']:.3f}x {b['rel_l2_err']:.2e}")
