"""Stall samples of ncu source-page exports (run.sh ncu_source) summed per SASS opcode: all
samples, then MIO throttle and short and long scoreboard; and the shared-memory accesses.
Usage: python sass_stalls.py run6/sass_*.csv.gz"""

import csv
import gzip
import sys
from collections import Counter

REASONS = ("stall_mio", "stall_short_sb", "stall_long_sb")


def instruction(source: str) -> str:
    """The opcode with its modifiers, after any predicate ('LDS.64')."""
    words = source.split()
    return words[1] if words and words[0].startswith("@") else (words or ["?"])[0]


def main(paths: list[str]) -> None:
    for path in paths:
        rows = list(csv.reader(gzip.open(path, "rt")))
        head, body = rows[1], rows[2:]
        col = {name: head.index(name) for name in head}
        samples, by_reason = Counter(), {reason: Counter() for reason in REASONS}
        shared = Counter()
        for row in body:
            source = row[col["Source"]].strip()
            op = instruction(source).split(".")[0]
            samples[op] += int(row[col["Warp Stall Sampling (All Samples)"]] or 0)
            for reason in REASONS:
                by_reason[reason][op] += int(row[col[reason]] or 0)
            if op in ("LDS", "STS"):
                kind = instruction(source) + (" (predicated)" if source.startswith("@") else "")
                shared[(kind, "executed")] += int(row[col["Instructions Executed"]] or 0)
                shared[(kind, "wavefronts")] += int(row[col["L1 Wavefronts Shared"]] or 0)
                shared[(kind, "mio")] += int(row[col["stall_mio"]] or 0)
        print(f"== {path}: {sum(samples.values())} samples")
        print("  by opcode:", samples.most_common(12))
        for reason, counts in by_reason.items():
            print(f"  {reason}:", counts.most_common(6))
        for (kind, what), value in sorted(shared.items()):
            print(f"  {kind} {what}: {value}")


if __name__ == "__main__":
    main(sys.argv[1:])
