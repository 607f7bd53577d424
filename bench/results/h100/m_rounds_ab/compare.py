"""Ratios of every m_rounds_ab variant to the same workload's mr1 kernel (same run):
python3 bench/results/h100/m_rounds_ab/compare.py bench/results/h100/m_rounds_ab/ab.jsonl"""

import collections
import json
import sys

VARIANTS = ("mr1", "mr2", "mr2-lb4", "mr4", "mr4-lb4", "mr4-lb5")


def main(path: str) -> None:
    runs = collections.defaultdict(dict)
    for line in open(path):
        r = json.loads(line)
        workload, _, knobs = r["artifact"].partition("-int8-")
        variant = knobs.split("-ul2")[1].lstrip("-") or "mr1"
        runs[workload][variant] = r
    print(f"{'workload':24s} {'mr1 us':>8s}" + "".join(f"{v:>9s}" for v in VARIANTS[1:])
          + "  correct  rel_l2 equal")
    for workload, by in runs.items():
        base = by["mr1"]["median_us"]
        ratios = "".join(f"{base / by[v]['median_us']:9.3f}" for v in VARIANTS[1:])
        correct = all(r["correct"] for r in by.values())
        equal = len({r["rel_l2_err"] for r in by.values()}) == 1
        print(f"{workload:24s} {base:8.1f}{ratios}  {correct!s:7s}  {equal}")


if __name__ == "__main__":
    main(*sys.argv[1:])
