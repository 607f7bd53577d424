"""compute-sanitizer's racecheck and synccheck over artifact folders (GPU side, no TVM).

python -m wino_tvm.bench.sanitize ARTIFACTS_ROOT --out DIR [--tools racecheck,synccheck]

Compiles each artifact's program (in parallel), runs it once under each tool (one correctness
check, no timing), and writes DIR/sanitize.log (every tool's output) and DIR/sanitize.jsonl
(per artifact and tool: errors, hazards by kind, the program's exit code).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..batch import artifact_dirs
from ..runner import compile_program, detect_arch

TOOLS = ("racecheck", "synccheck")
PROGRAM_ARGS = ("--checks", "1", "--warmup", "0", "--iters", "1", "--no-time")
_ERRORS = re.compile(r"ERROR SUMMARY: (\d+) error")
_HAZARD = re.compile(r"(Potential|Error)[^\n]*?(RAW|WAR|WAW) hazard", re.I)
_RACECHECK_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, "
                                r"(\d+) warnings?\)")


def sanitizer() -> str:
    found = shutil.which("compute-sanitizer")
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if not found and root and (Path(root) / "bin" / "compute-sanitizer").is_file():
            found = str(Path(root) / "bin" / "compute-sanitizer")
    if not found:
        raise SystemExit("error: compute-sanitizer not found: put the CUDA toolkit's bin/ on "
                         "PATH")
    return found


def summarise(text: str) -> dict:
    """The tool's error count, and racecheck's hazards by kind and severity."""
    errors = _ERRORS.findall(text)
    hazards: dict[str, int] = {}
    for severity, kind in _HAZARD.findall(text):
        key = f"{severity.lower()} {kind}"
        hazards[key] = hazards.get(key, 0) + 1
    summary = _RACECHECK_SUMMARY.search(text)
    return {"errors": int(errors[-1]) if errors else None, "hazard_lines": hazards,
            "racecheck_summary": summary.group(0) if summary else None}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.sanitize", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("artifacts", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--tools", default=",".join(TOOLS))
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    args = p.parse_args(argv)
    tool_path, arch = sanitizer(), detect_arch()
    dirs = artifact_dirs(args.artifacts)
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        binaries = list(pool.map(lambda d: compile_program(d, arch), dirs))
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    with open(args.out / "sanitize.log", "w") as log:
        for folder, binary in zip(dirs, binaries, strict=True):
            for tool in args.tools.split(","):
                command = [tool_path, "--tool", tool, "--print-limit", "50", str(binary),
                           *PROGRAM_ARGS]
                try:
                    proc = subprocess.run(command, capture_output=True, text=True,
                                          timeout=args.timeout)
                    text, code = proc.stdout + proc.stderr, proc.returncode
                except subprocess.TimeoutExpired:
                    text, code = f"timeout after {args.timeout} s", None
                log.write(f"==== {folder.name} {tool} (exit {code})\n{text}\n")
                row = {"artifact": folder.name, "tool": tool, "exit": code, **summarise(text)}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    (args.out / "sanitize.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
