"""What the machine running the tests has: nvcc, an NVIDIA GPU (skip markers for both), and
the steps the kernel tests share there: building artifacts for the GPU, checking a run."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from wino_tvm.errors import NoGpu, NvccNotFound
from wino_tvm.runner import compile_program, detect_arch, find_nvcc, run_program


def have_nvcc() -> bool:
    try:
        find_nvcc()
    except NvccNotFound:
        return False
    return True


def gpu_arch() -> str | None:
    """The GPU's sm_XX, or None without a GPU (or without the driver's tools)."""
    try:
        return detect_arch()
    except (NoGpu, NvccNotFound):
        return None


needs_nvcc = pytest.mark.skipif(not have_nvcc(), reason="nvcc not found")


def compile_for_gpu(artifacts: dict[str, Path]) -> dict[str, Path]:
    """Every artifact built for this machine's GPU, in parallel (nvcc is the slow part)."""
    arch = gpu_arch()
    with ThreadPoolExecutor(len(artifacts)) as pool:
        return dict(zip(artifacts, pool.map(lambda d: compile_program(d, arch),
                                            artifacts.values()), strict=True))


def assert_correct_on_gpu(binary: Path) -> None:
    """Two checks on fresh inputs against the float64 reference, and a short timing."""
    record = run_program(binary, ["--checks", "2", "--warmup", "2", "--iters", "5"],
                         timeout_s=300)
    assert record["correct"] is True and record["nonfinite"] == 0
    assert 0 < record["rel_l2_err"] < record["tolerance"]
