"""Compile a harness artifact with nvcc and run it on the GPU machine. TVM-free.

CLI: python -m wino_tvm.runner ARTIFACT_DIR [--arch sm_90] [--checks 3] [--record FILE.jsonl]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from wino_tvm.errors import NoGpu, NvccNotFound, WinoError
from wino_tvm.harness import PROGRAM_FILE

BINARY_FILE = "wino_bench"
# Where toolkits usually live when nvcc is not on the PATH (as on many GPU machines).
DEFAULT_CUDA_ROOTS = ("/usr/local/cuda",)
# TVM's preamble defines helpers (hpow, __pack_half2, ...) that most kernels never call, and
# nvcc would warn about each (#177-D); warnings from the rest still show.
NVCC_FLAGS = ("-std=c++17", "-O3", "-diag-suppress=177")
_ARCH = re.compile(r"sm_(\d+)(a?)")
_TAIL_LINES = 30
# A program that uses arch-specific instructions (wgmma) says so in a line of its source.
_NEEDS_ARCH = re.compile(r"^// wino-tvm: needs (sm_\d+a)$", re.M)


def find_nvcc() -> str:
    """Path of nvcc: the PATH first, then $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin."""
    found = shutil.which("nvcc")
    if found:
        return found
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), *DEFAULT_CUDA_ROOTS]
    for root in filter(None, roots):
        candidate = Path(root) / "bin" / "nvcc"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise NvccNotFound(
        "nvcc not found: install the CUDA toolkit and put its bin/ directory on PATH, "
        "or set CUDA_HOME to the toolkit root"
    )


def detect_arch() -> str:
    """The first GPU's architecture as nvcc spells it, e.g. "sm_90", from nvidia-smi."""
    hint = "the artifact compiles here but must run on a machine with an NVIDIA GPU"
    smi = shutil.which("nvidia-smi")
    if smi is None:
        raise NoGpu(f"nvidia-smi not found, so no NVIDIA GPU is visible; {hint}")
    try:
        proc = subprocess.run(
            [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NoGpu(f"nvidia-smi failed ({exc}); {hint}") from exc
    caps = proc.stdout.split()
    if proc.returncode != 0 or not caps or not re.fullmatch(r"\d+\.\d+", caps[0]):
        detail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise NoGpu(f"nvidia-smi lists no GPU ({detail[0]}); {hint}")
    major, minor = caps[0].split(".")
    return f"sm_{major}{minor}"


def arch_flags(arch: str) -> list[str]:
    match = _ARCH.fullmatch(arch)
    if not match:
        raise WinoError(f"bad arch {arch!r}; expected e.g. sm_80, sm_90 or sm_90a")
    if match.group(2):
        # Arch-specific targets (wgmma, setmaxnreg) need the -gencode form: with nvcc 13.0,
        # -arch=sm_90a also runs a plain sm_90 pass that rejects them.
        num = match.group(1)
        return [f"-gencode=arch=compute_{num}a,code=sm_{num}a"]
    return [f"-arch={arch}"]


def target_arch(program: Path, arch: str) -> str:
    """The target to compile program for a GPU of arch: arch itself, or the arch-specific one
    the program asks for (wgmma, TMA: sm_90a on an sm_90 GPU)."""
    needs = _NEEDS_ARCH.search(program.read_text())
    if needs is None:
        return arch
    if arch.removesuffix("a") != needs.group(1).removesuffix("a"):
        raise WinoError(f"{program} uses {needs.group(1)} instructions (wgmma, TMA): it runs "
                        f"on {needs.group(1).removesuffix('a')} GPUs (H100, H200), not {arch}; "
                        "rebuild it without wg and tma for this GPU")
    return needs.group(1)


def _program(artifact_dir: Path) -> Path:
    program = Path(artifact_dir) / PROGRAM_FILE
    if not program.is_file():
        raise WinoError(f"{program} not found: is {artifact_dir} a harness artifact directory?")
    return program


def _tail(text: str) -> str:
    return "\n".join(text.strip().splitlines()[-_TAIL_LINES:])


def run_nvcc(args: list[str], program: Path, arch: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([find_nvcc(), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise WinoError(f"nvcc failed on {program} for {arch}:\n{_tail(proc.stderr)}")
    return proc


def compile_program(artifact_dir: Path, arch: str, extra_flags: Sequence[str] = ()) -> Path:
    """Build artifact_dir/program.cu into the executable artifact_dir/wino_bench."""
    program = _program(artifact_dir)
    binary = program.parent / BINARY_FILE
    arch = target_arch(program, arch)
    args = [*NVCC_FLAGS, "-lineinfo", *arch_flags(arch), *extra_flags]
    proc = run_nvcc([*args, "-o", str(binary), str(program)], program, arch)
    if proc.stderr.strip():
        sys.stderr.write(proc.stderr)  # warnings: worth seeing even when the build succeeds
    return binary


def compile_check(
    artifact_dir: Path, archs: Sequence[str] = ("sm_80", "sm_90")
) -> dict[str, list[str]]:
    """Compile device code only (a cubin per arch, no GPU needed); return ptxas's report lines
    (registers, shared memory, spills) per arch."""
    program = _program(artifact_dir)
    report = {}
    for gpu_arch in archs:
        arch = target_arch(program, gpu_arch)
        cubin = program.parent / f"program_{arch}.cubin"
        args = [*NVCC_FLAGS, *arch_flags(arch), "-cubin", "-Xptxas", "-v"]
        proc = run_nvcc([*args, "-o", str(cubin), str(program)], program, arch)
        report[arch] = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
    return report


def run_program(binary: Path, args: list[str], timeout_s: float) -> dict:
    """Run the benchmark, passing its stderr progress through; return its JSON record."""
    try:
        proc = subprocess.Popen(
            [str(binary), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    except OSError as exc:
        raise WinoError(f"cannot run {binary}: {exc}") from exc
    tail: collections.deque[str] = collections.deque(maxlen=_TAIL_LINES)
    stdout: list[str] = []

    def pump_stderr() -> None:
        for line in proc.stderr:
            sys.stderr.write(line)
            sys.stderr.flush()
            tail.append(line)

    # Both pipes are drained on threads so that neither can fill up and stall the program.
    threads = [
        threading.Thread(target=pump_stderr, daemon=True),
        threading.Thread(target=lambda: stdout.append(proc.stdout.read()), daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        returncode = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise WinoError(f"{binary} did not finish within {timeout_s:g} s") from None
    for thread in threads:
        thread.join()
    stderr_tail = "".join(tail).rstrip()
    if returncode != 0:
        raise WinoError(f"{binary} exited with status {returncode}:\n{stderr_tail}")
    lines = "".join(stdout).strip().splitlines()
    try:
        record = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        record = None
    if not isinstance(record, dict):
        raise WinoError(f"{binary} printed no JSON record on its last stdout line:\n{stderr_tail}")
    return record


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m wino_tvm.runner",
        description="Compile a harness artifact for this machine's GPU, run it, print its record.",
    )
    parser.add_argument("artifact_dir", type=Path, help="directory holding program.cu")
    parser.add_argument("--arch", help="e.g. sm_90 (default: detected with nvidia-smi)")
    parser.add_argument("--checks", type=int, default=1, help="correctness checks, one seed each")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first check")
    parser.add_argument("--iters", type=int, default=100, help="timed forward calls")
    parser.add_argument("--warmup", type=int, default=20, help="untimed forward calls first")
    parser.add_argument("--no-time", action="store_true", help="check correctness only")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds for the run")
    parser.add_argument("--record", type=Path, help="append the JSON record to this .jsonl file")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns the exit status."""
    args = _parse_args(argv)
    program_args = [
        "--checks", str(args.checks), "--seed", str(args.seed),
        "--iters", str(args.iters), "--warmup", str(args.warmup),
    ]
    if args.no_time:
        program_args.append("--no-time")
    try:
        binary = compile_program(args.artifact_dir, args.arch or detect_arch())
        record = run_program(binary, program_args, args.timeout)
    except WinoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    line = json.dumps(record)
    print(line)
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        with args.record.open("a") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
