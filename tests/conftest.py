"""Fixtures that several test modules share."""

from __future__ import annotations

from dataclasses import asdict

import pytest


@pytest.fixture(scope="session")
def one_chunk() -> tuple[str, list[dict]]:
    """Fresh TVM output, fp16 m=2 with TB_K = C (one channel chunk, so the full kernel's warps
    transform whole tiles): three tile blocks, the last one partial; fp16 accumulators, so that
    the M slice fits in V's and the kernel can persist."""
    from wino_tvm.codegen import generate
    from wino_tvm.config import KernelConfig
    from wino_tvm.schedule import scheduled_module
    from wino_tvm.workload import Conv2dWorkload

    wl = Conv2dWorkload(2, 11, 13, 64, 32, dtype="fp16", m=2, accum="fp16")
    proto = generate(scheduled_module(wl, KernelConfig(32, 32, 64, fusion="full")))
    return proto.source, [asdict(k) for k in proto.launches]
