"""Blocks per SM promised to ptxas (reconstructor.occupancy) and their round trip."""

from __future__ import annotations

import pytest

from reconstructor.errors import ReconstructError
from reconstructor.launch import Launch
from reconstructor.occupancy import (
    SM_LIMITS,
    hint_resident_blocks,
    register_ceiling,
    resident_blocks,
)
from reconstructor.pipeline import reconstruct
from reconstructor.source import Kernel, Param, render_kernel, split_kernels
from tests.stored_sources import stored

KERNEL = Kernel("k", 256, (Param("half* __restrict__", "x_ptr"),), "  return;\n")


def _launch(block: tuple[int, int, int], shared_bytes: int) -> Launch:
    return Launch("k", ("x",), (100, 1, 1), block, shared_bytes)


@pytest.mark.parametrize(("threads", "shared", "blocks"), [
    (256, 229376, 1),  # fp16-accumulator 32/32 ks2 persistent: one block
    (128, 100 * 1024, 2),
    (128, 60 * 1024, 3),
    (128, 0, 16),  # thread slots bind: 2048 / 128
    (64, 0, 32),  # block slots bind
])
def test_resident_blocks_sm90(threads, shared, blocks):
    assert resident_blocks(threads, shared, SM_LIMITS["sm_90"]) == blocks


@pytest.mark.parametrize(("block", "shared", "min_blocks"), [
    ((32, 4, 2), 229376, 1),  # 1 x 256 threads: ceiling 255 either way
    ((32, 4, 1), 100 * 1024, 2),  # 2 x 128: 255
    ((32, 4, 4), 140 * 1024, 1),  # 1 x 512: 128, the same as without the count
    ((32, 4, 1), 60 * 1024, None),  # 3 x 128 would lower the ceiling to 170: no count
    ((32, 4, 2), 100 * 1024, None),  # 2 x 256: 128 instead of 255
])
def test_hint_only_where_the_register_ceiling_stays(block, shared, min_blocks):
    hinted = hint_resident_blocks(KERNEL, _launch(block, shared), "sm_90")
    assert hinted.min_blocks == min_blocks
    assert hinted.body == KERNEL.body and hinted.params == KERNEL.params
    threads = block[0] * block[1] * block[2]
    if min_blocks is not None:
        assert register_ceiling(threads, min_blocks) == register_ceiling(threads, 1)


def test_unknown_arch_is_refused():
    with pytest.raises(ReconstructError, match="unknown arch 'sm_70'"):
        hint_resident_blocks(KERNEL, _launch((32, 4, 1), 0), "sm_70")


def test_min_blocks_round_trips_through_the_source():
    text = render_kernel(Kernel("k", 256, KERNEL.params, KERNEL.body, 1))
    assert text.startswith('extern "C" __global__ void __launch_bounds__(256, 1) k(')
    (parsed,) = split_kernels(text).kernels
    assert parsed == Kernel("k", 256, KERNEL.params, KERNEL.body, 1)
    assert split_kernels(render_kernel(KERNEL)).kernels[0].min_blocks is None


@pytest.mark.parametrize("fusion", ["none", "syncfree", "shmem", "llc", "full"])
def test_small_blocks_get_no_count(fusion):
    """The stored prototype's 128-thread kernels fit 4-6 per SM (ceiling 102-128): no count.
    The one-block persistent kernels get theirs in tests/test_persist.py."""
    source, launches = stored("fp16-m2")
    r = reconstruct(source, launches, fusion, arch="sm_90")
    assert all(k.min_blocks is None for k in split_kernels(r.source).kernels)
    assert "__launch_bounds__(128) " in r.source
