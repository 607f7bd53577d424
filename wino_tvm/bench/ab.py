"""Same-run A/B of source trees: each side's speed and correctness, paired by artifact.

Build each side's artifacts from its own checkout into one folder, named `a-NAME`, `b-NAME`
(and `c-NAME` ... for more variants; `python -m wino_tvm.build ... --out ROOT/a-NAME --no-run`),
then on the GPU machine `python -m wino_tvm.bench.ab ROOT --out DIR`: every artifact's harness
compiled, then run in interleaved rounds (each checked against float64, timed; no cuDNN
baselines, so that many artifacts fit one call), the records in DIR/ab.jsonl, and per NAME
a-'s median µs and each other side's speed over it (> 1: faster than a). Given a results.jsonl
of `python -m wino_tvm.bench` (one round, with baselines) it compares that run instead."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from .. import batch
from ..errors import WinoError
from ..harness import PROGRAM_FILE
from ..runner import detect_arch

AB_FILE = "ab.jsonl"


def pairs(records: list[dict]) -> dict[str, dict[str, dict]]:
    """{NAME: {side: record}} for the records whose artifact is named SIDE-NAME."""
    out: dict[str, dict[str, dict]] = {}
    for record in records:
        side, _, name = record["artifact"].partition("-")
        if name:
            out.setdefault(name, {})[side] = record
    return out


def table(records: list[dict]) -> list[str]:
    """The comparison's lines: every pair of a and another side, then per side the
    geometric-mean speed over a, and whether every artifact was correct."""
    lines, speeds = [], {}
    for name, sides in sorted(pairs(records).items()):
        a = sides.get("a")
        others = sorted(set(sides) - {"a"})
        if not (a and a.get("median_us") and others):
            lines.append(f"{name}: unpaired or failed ({sorted(sides)})")
            continue
        parts = [f"a {a['median_us']:.1f} µs"]
        for side in others:
            rec = sides[side]
            if not rec.get("median_us"):
                parts.append(f"{side} failed")
                continue
            speed = a["median_us"] / rec["median_us"]
            speeds.setdefault(side, []).append(speed)
            parts.append(f"{side} {rec['median_us']:.1f} µs ({side}/a speed {speed:.3f}x)")
        wrong = [side for side in sorted(sides) if not sides[side].get("correct")]
        lines.append(f"{name}: " + ", ".join(parts) + (f"; WRONG: {wrong}" if wrong else ""))
    for side, got in sorted(speeds.items()):
        lines.append(f"{side}/a over {len(got)} pairs: {min(got):.3f}x-{max(got):.3f}x, "
                     f"geometric mean {statistics.geometric_mean(got):.3f}x")
    lines.append(f"all {len(records)} artifacts correct: "
                 f"{all(r.get('correct') for r in records)}")
    return lines


def per_artifact(rounds: list[dict]) -> list[dict]:
    """One record per artifact from its rounds: the median of their medians, correct only if
    every round was."""
    by: dict[str, list[dict]] = {}
    for record in rounds:
        by.setdefault(record["artifact"], []).append(record)
    out = []
    for artifact, recs in by.items():
        times = [r["median_us"] for r in recs if r.get("median_us")]
        out.append({"artifact": artifact, "rounds": len(recs),
                    "median_us": statistics.median(times) if len(times) == len(recs) else None,
                    "correct": all(r.get("correct") for r in recs)})
    return out


def artifact_dirs(root: Path) -> list[Path]:
    """The SIDE-NAME harness artifacts under root, in name order."""
    dirs = [d for d in batch.artifact_dirs(root) if "-" in d.name]
    if not dirs:
        raise WinoError(f"no SIDE-NAME artifact folders (with {PROGRAM_FILE}) under {root}: "
                        "build them with python -m wino_tvm.build ... --out ROOT/a-NAME --no-run")
    return dirs


def run_rounds(root: Path, out: Path, rounds: int, iters: int, warmup: int, jobs: int,
               arch: str | None) -> list[dict]:
    """Compile every artifact, run them all `rounds` times in turn (a round through every
    artifact before the next), append each run's record to out/ab.jsonl as it comes."""
    dirs = artifact_dirs(root)
    built = batch.compile_all(dirs, arch or detect_arch(), jobs)
    out.mkdir(parents=True, exist_ok=True)
    path = out / AB_FILE
    path.write_text("")
    records = []
    args = ["--checks", "1", "--iters", str(iters), "--warmup", str(warmup)]
    for r in range(1, rounds + 1):
        for d, result in zip(dirs, built, strict=True):
            record = {"round": r, "correct": False, **batch.run_one(d, result, args)}
            with path.open("a") as f:
                f.write(json.dumps(record) + "\n")
            records.append(record)
            took = f"{record['median_us']:.1f} µs" if record.get("median_us") else "failed"
            print(f"[round {r}/{rounds}] {d.name}: {took}, correct {record.get('correct')}",
                  file=sys.stderr, flush=True)
    return records


def main(argv: list[str] | None = None) -> int:
    """0 when every artifact is correct, 1 if not, 2 on bad input."""
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.ab", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", type=Path,
                   help="a folder of SIDE-NAME artifacts to run, or a results.jsonl of "
                        "python -m wino_tvm.bench")
    p.add_argument("--out", type=Path, help="folder for ab.jsonl (running artifacts)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians over them)")
    p.add_argument("--iters", type=int, default=200, help="timed calls per run")
    p.add_argument("--warmup", type=int, default=20, help="untimed calls first")
    p.add_argument("--jobs", type=int, default=8, help="parallel nvcc builds")
    p.add_argument("--arch", help="e.g. sm_90 (default: detected with nvidia-smi)")
    args = p.parse_args(argv)
    try:
        if args.source.is_dir():
            if args.out is None or args.rounds < 1 or args.iters < 1 or args.warmup < 0:
                raise WinoError("running artifacts needs --out DIR, --rounds >= 1, --iters >= 1 "
                                "and --warmup >= 0")
            records = per_artifact(run_rounds(args.source, args.out, args.rounds, args.iters,
                                              args.warmup, args.jobs, args.arch))
        else:
            lines = args.source.read_text().splitlines() if args.source.is_file() else []
            records = [r for r in map(json.loads, filter(None, lines)) if "artifact" in r]
            if not records:
                raise WinoError(f"{args.source} holds no artifact records: measure SIDE-NAME "
                                "artifacts first, or give their folder")
    except WinoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(table(records)))
    return 0 if all(r.get("correct") for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
