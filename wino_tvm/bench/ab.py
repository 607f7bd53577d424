"""Same-run A/B of two source trees: each side's speed and correctness, paired by artifact.

Build each side's artifacts from its own checkout into one folder, named `a-NAME` and `b-NAME`
(`python -m wino_tvm.build ... --out ROOT/a-NAME`), measure them in one run on the GPU
(`python -m wino_tvm.bench ROOT --out DIR`), then `python -m wino_tvm.bench.ab
DIR/results.jsonl`: per NAME, a-'s median µs and b-'s speed over it (> 1: b faster)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def pairs(records: list[dict]) -> dict[str, dict[str, dict]]:
    """{NAME: {side: record}} for the records whose artifact is named SIDE-NAME."""
    out: dict[str, dict[str, dict]] = {}
    for record in records:
        side, _, name = record["artifact"].partition("-")
        if name:
            out.setdefault(name, {})[side] = record
    return out


def table(records: list[dict]) -> list[str]:
    """The comparison's lines: every pair, then the geometric-mean speed and the verdicts."""
    lines, speeds = [], []
    for name, sides in sorted(pairs(records).items()):
        a, b = sides.get("a"), sides.get("b")
        if not (a and b and a.get("median_us") and b.get("median_us")):
            lines.append(f"{name}: unpaired or failed ({sorted(sides)})")
            continue
        speed = a["median_us"] / b["median_us"]
        speeds.append(speed)
        lines.append(f"{name}: a {a['median_us']:.1f} µs, b {b['median_us']:.1f} µs, "
                     f"b/a speed {speed:.3f}x, correct a {a.get('correct')} b {b.get('correct')}")
    correct = all(r.get("correct") for r in records)
    if speeds:
        lines.append(f"{len(speeds)} pairs: b/a speed {min(speeds):.3f}x-{max(speeds):.3f}x, "
                     f"geometric mean {statistics.geometric_mean(speeds):.3f}x; "
                     f"all {len(records)} artifacts correct: {correct}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.ab", description=__doc__)
    p.add_argument("results", type=Path, help="results.jsonl of one python -m wino_tvm.bench run")
    args = p.parse_args(argv)
    records = [json.loads(line) for line in args.results.read_text().splitlines() if line]
    records = [r for r in records if "artifact" in r]
    if not records:
        print(f"error: {args.results} holds no artifact records: measure a-/b- artifacts first",
              file=sys.stderr)
        return 2
    print("\n".join(table(records)))
    return 0 if all(r.get("correct") for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
