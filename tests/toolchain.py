"""What the machine running the tests has: nvcc, an NVIDIA GPU (skip markers for both)."""

from __future__ import annotations

import pytest

from wino_tvm.errors import NoGpu, NvccNotFound
from wino_tvm.runner import detect_arch, find_nvcc


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
