"""Each side's speed over its a- twin in one batch (bench/ab_run.sh):
  python3 bench/ab_compare.py OUT/RUN/batch.jsonl [TOKEN ...]
  python3 bench/ab_compare.py OUT/RUN/batch.jsonl --by-workload
TOKENs (config name tokens such as xown) are dropped from the names before pairing, for sides
that add a knob to a-'s configs; --by-workload pairs by workload and accumulator alone, for
sides with other configs."""

import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
by_workload = sys.argv[2:] == ["--by-workload"]
dropped = [] if by_workload else sys.argv[2:]
pairs: dict[str, dict[str, dict]] = {}
for r in rows:
    side, rest = r["artifact"].split("-", 1)
    if by_workload:
        rest = "-".join(rest.split("-")[:3])  # workload key, dtype, accumulator
    for token in dropped:
        rest = rest.replace(f"-{token}-", "-")
    pairs.setdefault(rest, {})[side] = r
sides = sorted({s for v in pairs.values() for s in v} - {"a"})
print(f"{len(rows)} artifacts, all correct: {all(r.get('correct') for r in rows)}; "
      f"a-'s median us, then the speed of {', '.join(sides)} over a")
for rest, v in sorted(pairs.items()):
    short = rest.replace("-m2-tbm16-", "-").replace("-frag16x8x16-full-vec16-pad16-pb", "")
    if "a" not in v:  # a config only the other sides built
        print(f"{short:70s} {'-':>7s}  " + " ".join(f"{s} {v[s]['median_us']:.1f} us"
                                                    for s in sides if s in v))
        continue
    a = v["a"]["median_us"]
    speeds = " ".join(f"{s} {a / v[s]['median_us']:.3f}x" for s in sides if s in v)
    print(f"{short:70s} {a:7.1f}  {speeds}")
