"""Each case's best lane config against its current pick (measured again in the same run),
and each epilogue case's best lane config: python3 compare.py > compare.txt"""

import json
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
cases = defaultdict(list)
for line in open(HERE / "tune_lane.jsonl"):
    r = json.loads(line)
    assert r["status"] == "ok", r  # ok: correct and timed ("wrong" otherwise)
    cases[(r["workload_key"], r["accum"], r["epilogue"])].append(r)
print(f"{'workload':24s} {'acc':4s} {'epilogue':20s} {'pick us':>8s} {'lane us':>8s} "
      f"{'ratio':>6s}  best lane config (of n lane configs, all correct)")
for (key, accum, epilogue), rows in sorted(cases.items()):
    lane = sorted((r for r in rows if "-lane" in r["config"]), key=lambda r: r["median_us"])
    pick = [r for r in rows if "-lane" not in r["config"]]
    best = lane[0]
    pick_us = f"{pick[0]['median_us']:8.1f}" if pick else f"{'-':>8s}"
    ratio = f"{pick[0]['median_us'] / best['median_us']:5.2f}x" if pick else f"{'':6s}"
    print(f"{key:24s} {accum:4s} {epilogue or '-':20s} {pick_us} {best['median_us']:8.1f} "
          f"{ratio}  {best['config'].split('-pb-')[1]} (of {len(lane)})")
