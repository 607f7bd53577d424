"""Whole input tiles per thread in the full kernel's ITrans (reconstructor.whole_tiles) on TVM
output. That it computes the same V as TVM's code: test_specialise's host run."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import asdict
from pathlib import Path

import pytest
import regex
from stored_sources import full_kernel, stored

from wino_tvm.kernels.pkf.codegen import generate
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.pipeline import Options, reconstruct
from wino_tvm.kernels.pkf.reconstructor.whole_tiles import (
    WHOLE_TILES_MARK,
    takes_whole_tiles,
    whole_tile_itrans,
)
from wino_tvm.kernels.pkf.schedule import scheduled_module
from wino_tvm.workload import Conv2dWorkload

SWITCH = "switch ((int)threadIdx.y)"
TRIP = regex.compile(r"^[ ]*int it_\w+ = (\d+) \+ \(\(int\)threadIdx\.y\);$", regex.M)
ALPHA = 4
# 32 tiles x 64 channels per block in 16-byte groups: 8 trips of 32 lanes, 2 per warp.
TRIPS = 8


def itrans_part(body: str) -> str:
    start = body.index(WHOLE_TILES_MARK)
    return body[start:body.index("__syncthreads();", start)]


@pytest.mark.parametrize("persist", [False, True])
def test_each_warp_transforms_whole_tiles_of_its_own_trips(one_chunk, persist: bool) -> None:
    body = full_kernel(reconstruct(*one_chunk, Options("full", persist=persist)).source).body
    assert SWITCH not in body
    part = itrans_part(body)
    # Warp w runs trips w and w + 4: together every trip once.
    starts = [int(s) for s in TRIP.findall(part)]
    assert sorted({s + w for s in starts for w in range(ALPHA)}) == list(range(TRIPS))
    # One copy of a tile's 16 loads per trip of the warp, each trip into its own array.
    assert part.count("x_ptr") == 16 * TRIPS // ALPHA
    assert len(set(regex.findall(r"\bit_d_local_ptr_\d+\b", part))) == TRIPS // ALPHA
    # All of a warp's loads come before its first transform (they are in flight together).
    assert part.rindex("x_ptr") < part.index("it_dB_local_ptr")
    # The warps write each other's V columns: a block barrier, not a warp barrier, follows.
    assert "__sync" not in part and part.rstrip(" ").endswith("}\n")


def test_warp_groups_wait_for_their_own_group(one_chunk) -> None:
    body = full_kernel(reconstruct(*one_chunk, Options("full", persist=True, groups=2)).source).body
    after = body[body.index(WHOLE_TILES_MARK):]
    barrier = regex.search(r"__syncthreads\(\);|__syncwarp\(\);|bar\.sync[^;]*;", after)
    assert barrier.group() == 'bar.sync %0, 128;'  # the group's named barrier


def test_chunked_kernels_wait_for_every_warp_before_overwriting_v() -> None:
    """The stored fp16 config stages V per channel chunk (TB_K < C, 2 trips of the tile loop):
    warps 0 and 1 take one trip each; every warp's loads, then a block barrier (other warps may
    still read the last chunk's V), the transforms, a block barrier before the MMA."""
    body = full_kernel(reconstruct(*stored("fp16-m2"), Options("full")).source).body
    assert SWITCH not in body
    loop = body.index("for (int c_0 = 0; c_0 < ")
    start = body.index(WHOLE_TILES_MARK)
    end = body.index("cp.async.wait_group", start)  # U's staging: each warp its own column
    part = body[start:end]
    assert loop < start and "__syncwarp" not in part
    barriers = [m.start() for m in regex.finditer(r"__syncthreads\(\);", part)]
    assert len(barriers) == 2
    assert part.rindex("x_ptr") < barriers[0] < part.index("it_dB_local_ptr") < barriers[1]
    assert [int(s) for s in TRIP.findall(part)] == [0] * (1 + ALPHA)  # loads, then 4 cases
    assert part.count("if (((int)threadIdx.y) < 2) {") == 1 + ALPHA
    assert part.count("x_ptr") == 16


@pytest.mark.parametrize(("c", "tb_m", "tb_k"), [
    (32, 16, 16),   # 16 tiles x 16 channels: one trip of 32 lanes, and TVM drops the loop
    (128, 32, 64),  # 2 chunks of 8 trips: 2 per warp would spill (the accumulators are live)
])
def test_kernels_whole_tiles_do_not_pay_keep_the_warp_cases(c: int, tb_m: int, tb_k: int) -> None:
    wl = Conv2dWorkload(1, 12, 12, c, 64, dtype="fp16", m=2)
    proto = generate(scheduled_module(wl, PkfConfig(tb_m, 64, tb_k, fusion="full")))
    kernel = full_kernel(reconstruct(proto.source, [asdict(k) for k in proto.launches],
                                     Options("full")).source)
    assert SWITCH in kernel.body and WHOLE_TILES_MARK not in kernel.body
    assert not takes_whole_tiles(kernel)


def test_stored_int8_kernel_keeps_the_warp_cases() -> None:
    """The stored int8 source (an older schedule: byte loads, one trip per chunk, so TVM drops
    the tile loop) has nothing to share; fresh int8 output takes whole tiles
    (test_reconstruct_fresh, test_specialise's host run)."""
    kernel = full_kernel(reconstruct(*stored("int8-m2"), Options("full")).source)
    assert SWITCH in kernel.body and WHOLE_TILES_MARK not in kernel.body


def test_a_kernel_without_warp_cases_is_refused(one_chunk) -> None:
    plain = full_kernel(reconstruct(*one_chunk, Options("full", specialise=False)).source)
    assert not takes_whole_tiles(plain)
    with pytest.raises(ReconstructError, match=r"^whole_tile_itrans: .* not one per-warp switch"):
        whole_tile_itrans(plain, ALPHA)


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize(("persist", "groups"), [(False, 1), (True, 1), (True, 2)])
def test_whole_tile_kernels_compile(one_chunk, tmp_path: Path, persist: bool, groups: int) -> None:
    path = tmp_path / "full.cu"
    path.write_text(reconstruct(*one_chunk, Options("full", persist=persist, groups=groups)).source)
    proc = subprocess.run(["nvcc", "-std=c++17", "-O3", "-arch=sm_90", "-cubin", "-o",
                           str(path.with_suffix(".cubin")), str(path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
