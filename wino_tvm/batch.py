"""Compile every artifact under a folder in parallel, run them one by one, record (TVM-free).

python -m wino_tvm.batch ARTIFACTS --record RESULTS.jsonl [--checks 3]
Compiles with all cores (nvcc is the slow part), then runs each program alone on the GPU so the
timings do not disturb each other; prints a table at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .errors import WinoError
from .harness import PROGRAM_FILE
from .runner import compile_program, detect_arch, run_program

RUN_TIMEOUT_S = 300.0


def artifact_dirs(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob(PROGRAM_FILE))


def compile_all(dirs: list[Path], arch: str, jobs: int) -> list[tuple[Path | None, str | None]]:
    """nvcc in parallel: each artifact's program binary, or why it did not build."""
    def build(d: Path) -> tuple[Path | None, str | None]:
        try:
            return compile_program(d, arch), None
        except WinoError as exc:
            return None, str(exc)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(build, dirs))


def run_one(d: Path, built: tuple[Path | None, str | None], args: list[str]) -> dict:
    """Artifact d's record: its program's JSON record with status ok, or status error and why
    (it did not build, or did not run)."""
    binary, error = built
    if binary is not None:
        try:
            record = run_program(binary, args, RUN_TIMEOUT_S)
        except WinoError as exc:
            error = str(exc)
    if error is not None:
        return {"artifact": d.name, "status": "error", "error": error[-2000:]}
    return {**record, "artifact": d.name, "status": "ok"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.batch", description=__doc__)
    p.add_argument("root", type=Path, help="folder holding artifact folders (each a program.cu)")
    p.add_argument("--record", type=Path, required=True, help="append JSON lines here")
    p.add_argument("--checks", type=int, default=3)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--arch", help="default: detected")
    args = p.parse_args(argv)
    dirs = artifact_dirs(args.root)
    if not dirs:
        print(f"error: no {PROGRAM_FILE} under {args.root}", file=sys.stderr)
        return 2
    try:
        arch = args.arch or detect_arch()
    except WinoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"compiling {len(dirs)} artifacts for {arch} with {args.jobs} jobs", file=sys.stderr)

    built = compile_all(dirs, arch, args.jobs)
    args.record.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, (d, result) in enumerate(zip(dirs, built, strict=True), 1):
        print(f"[{i}/{len(dirs)}] {d.name}", file=sys.stderr)
        record = run_one(d, result, ["--checks", str(args.checks), "--iters", str(args.iters)])
        rows.append(record)
        with args.record.open("a") as f:
            f.write(json.dumps(record) + "\n")
    print(f"{'artifact':60s} {'ok':>3s} {'median_us':>10s} {'TFLOP/s':>8s} {'rel_l2':>9s}")
    for r in rows:
        if r["status"] != "ok":
            print(f"{r['artifact']:60s} ERR {r['error'].splitlines()[0][:60]}")
            continue
        print(f"{r['artifact']:60s} {'yes' if r['correct'] else 'NO':>3s} "
              f"{r['median_us'] or 0:10.1f} {r['tflops'] or 0:8.2f} {r['rel_l2_err']:9.2e}")
    return 0 if all(r["status"] == "ok" and r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
