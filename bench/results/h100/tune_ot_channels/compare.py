"""Pair each config's ot_channels 1 and 2 records of tune_oc.jsonl (python3 compare.py)."""

import json
import statistics
from pathlib import Path

pairs = {}
for line in Path(__file__).with_name("tune_oc.jsonl").read_text().splitlines():
    r = json.loads(line)
    assert r["status"] == "ok", r
    base = r["config"].removesuffix("-oc2")
    key = (r["workload_key"], base, r["epilogue"])
    pairs.setdefault(key, {})["oc2" if r["config"].endswith("-oc2") else "oc1"] = r
ratios = []
for (wl, cfg, ep), p in sorted(pairs.items()):
    one, two = p["oc1"]["median_us"], p["oc2"]["median_us"]
    ratios.append(one / two)
    tag = f" +{ep}" if ep else ""
    print(f"{wl:<24} {cfg.replace('-frag16x16x16-full-vec16-pad16', ''):<42}{tag:<20} "
          f"{one:8.1f} {two:8.1f} {one / two:6.3f}x")
wins = sum(r > 1 for r in ratios)
print(f"{len(ratios)} configs, all correct: 2 channels {min(ratios):.3f}x .. {max(ratios):.3f}x "
      f"(median {statistics.median(ratios):.3f}x), faster at {wins}")
