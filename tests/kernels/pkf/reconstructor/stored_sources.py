"""Stored TVM output the reconstructor tests run on (fixtures/ beside this module)."""

from __future__ import annotations

import json
from pathlib import Path

from wino_tvm.kernels.pkf.reconstructor.full import FULL_KERNEL
from wino_tvm.kernels.pkf.reconstructor.source import Kernel, split_kernels

FIXTURES = Path(__file__).parent / "fixtures"


def stored(name: str) -> tuple[str, list[dict]]:
    """(CUDA source, launches) of the stored prototype NAME.cu / NAME.launches.json."""
    return ((FIXTURES / f"{name}.cu").read_text(),
            json.loads((FIXTURES / f"{name}.launches.json").read_text()))


def full_kernel(source: str) -> Kernel:
    """The fully fused kernel of a reconstructed source."""
    return next(k for k in split_kernels(source).kernels if k.name == FULL_KERNEL)
