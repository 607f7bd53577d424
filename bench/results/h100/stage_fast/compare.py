"""Run 5 against the tuning log before it: each new record's time over the config's previous
record, and each case's best before and after the run's records are added.
Usage: python compare.py run5/tune.jsonl > run5/compare.txt (from this folder, before the
records go into ../../../../tuning_logs/h100.jsonl)"""

import json
import sys
from collections import defaultdict
from pathlib import Path

LOG = Path(__file__).resolve().parents[4] / "tuning_logs" / "h100.jsonl"


def case(r: dict) -> tuple:
    return r["workload_key"], r["accum"], r.get("epilogue", "")


def main(path: str) -> None:
    old = defaultdict(dict)  # the latest ok record of each config, as latest() reads the log
    for line in LOG.read_text().splitlines():
        r = json.loads(line)
        if r["status"] == "ok" and "H100" in r["device"] and r["fusion"] == "full" and r["m"] == 2:
            old[case(r)][r["config"]] = r["median_us"]
    new = defaultdict(dict)
    for line in open(path):
        r = json.loads(line)
        if r["status"] == "ok":
            new[case(r)][r["config"]] = r["median_us"]
    short = lambda c: c.split("-vec16-pad16-")[1]  # noqa: E731
    print(f"{'case':<50} {'best before':>11} {'after':>7} {'gain':>6}  new best (its old record)")
    ratios = defaultdict(list)
    for key in sorted(new):
        for config, us in new[key].items():
            if config in old[key]:
                kind = ("wg-ts2" if "-wg" in config and "-ts2" in config and "tbn64" in config
                        else "wg other" if "-wg" in config else "mma.sync")
                ratios[kind].append(old[key][config] / us)
        merged = {**old[key], **new[key]}
        before = min(old[key].items(), key=lambda kv: kv[1])
        after = min(merged.items(), key=lambda kv: kv[1])
        label = " ".join(k for k in key if k)
        print(f"{label:<50} {before[1]:>11.1f} {after[1]:>7.1f} {before[1] / after[1]:>5.2f}x  "
              f"{short(after[0])} ({old[key].get(after[0], float('nan')):.1f})")
    for kind, values in sorted(ratios.items()):
        values.sort()
        print(f"{kind}: {len(values)} configs, old / new {values[0]:.2f}x-{values[-1]:.2f}x, "
              f"median {values[len(values) // 2]:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1])
