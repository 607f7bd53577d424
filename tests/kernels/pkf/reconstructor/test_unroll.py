"""Partial unrolling of the fused ITrans tile loop and the full kernel's OTrans loop
(reconstructor.unroll) on stored TVM output."""

from __future__ import annotations

import pytest
import regex
from stored_sources import stored

from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.full import otrans_span
from wino_tvm.kernels.pkf.reconstructor.pipeline import (
    ITRANS_UNROLL,
    OTRANS_UNROLL,
    OTRANS_UNROLL_RESIDUAL,
    Options,
    otrans_unroll_factor,
    reconstruct,
)
from wino_tvm.kernels.pkf.reconstructor.source import Kernel, Param, split_kernels
from wino_tvm.kernels.pkf.reconstructor.unroll import unroll_itrans, unroll_otrans

PRAGMA = regex.compile(r"^[ ]*#pragma unroll(?: \d+)?\n", regex.M)
FUSED = ("itrans_bgemm_", "winograd_full_")
TILE_LOOP = regex.compile(r"^(?P<i>[ ]*)#pragma unroll(?P<n> \d+)?\n(?P=i)for \(int it_\w+ = 0; "
                          r"\w+ < (?P<extent>\d+);", regex.M)
OTRANS_LOOP = regex.compile(r"^(?P<i>[ ]*)#pragma unroll(?P<n> \d+)?\n(?P=i)for \(int ot_\w+ = 0; "
                            r"\w+ < (?P<extent>\d+);", regex.M)


def fused_kernel(name: str, fusion: str, specialise: bool) -> Kernel:
    source = reconstruct(*stored(name), Options(fusion, specialise)).source
    return next(k for k in split_kernels(source).kernels if k.name.startswith(FUSED))


@pytest.mark.parametrize(("name", "specialise", "loops"), [
    ("fp16-m2", True, 0),   # its warps transform whole tiles instead (reconstructor.whole_tiles)
    ("fp16-m2", False, 0),  # unspecialised ITrans is not unrolled (pipeline.ITRANS_UNROLL)
    ("int8-m2", True, 0),   # nor int8's
])
def test_full_unrolls_specialised_fp16_tile_loops(name: str, specialise: bool, loops: int) -> None:
    kernel = fused_kernel(name, "full", specialise)
    found = TILE_LOOP.findall(kernel.body)
    # Every other pragma is the OTrans loop's (below).
    assert len(found) == loops == len(PRAGMA.findall(kernel.body)) - 1
    # The fixture's tile loop has 2 trips: at most ITRANS_UNROLL, so unrolled whole.
    assert all(int(extent) <= ITRANS_UNROLL and not n for _, n, extent in found)


def test_unroll_only_adds_pragmas() -> None:
    """The shmem kernel has no pragma of its own; unrolling it adds one line and nothing else."""
    kernel = fused_kernel("fp16-m2", "shmem", True)
    assert not PRAGMA.search(kernel.body)
    out = unroll_itrans(kernel, 4)
    assert PRAGMA.sub("", out.body) == kernel.body
    assert [(n, extent) for _, n, extent in TILE_LOOP.findall(out.body)] == [("", "2")] * 4


def test_a_longer_loop_is_unrolled_by_the_factor() -> None:
    kernel = fused_kernel("fp16-m2", "shmem", True)
    loop = regex.compile(r"(for \(int (it_\w+) = 0; \2 < )2;")
    longer = Kernel(kernel.name, kernel.launch_bounds, kernel.params,
                    loop.sub(r"\g<1>6;", kernel.body))
    assert [n for _, n, _ in TILE_LOOP.findall(unroll_itrans(longer, 4).body)] == [" 4"] * 4
    assert [n for _, n, _ in TILE_LOOP.findall(unroll_itrans(longer, 6).body)] == [""] * 4


def test_a_loop_free_itrans_is_left_alone() -> None:
    # TVM drops the int8 fixture's tile loop (one tile group per warp): nothing to unroll.
    kernel = fused_kernel("int8-m2", "shmem", True)
    assert unroll_itrans(kernel, 4) == kernel


def test_unroll_refuses_a_factor_below_two() -> None:
    with pytest.raises(ReconstructError, match="unroll_itrans: unroll factor 1 must be at least"):
        unroll_itrans(fused_kernel("fp16-m2", "shmem", True), 1)


def test_other_fusions_are_not_unrolled() -> None:
    for fusion in ("none", "syncfree", "shmem", "llc"):
        assert not PRAGMA.search(reconstruct(*stored("fp16-m2"), Options(fusion)).source), fusion


@pytest.mark.parametrize("name", ["fp16-m2", "int8-m2"])
@pytest.mark.parametrize("specialise", [True, False])
def test_full_unrolls_its_otrans_loop_at_alpha_4(name: str, specialise: bool) -> None:
    kernel = fused_kernel(name, "full", specialise)
    found = OTRANS_LOOP.findall(kernel.body)
    assert len(found) == 1
    _, n, extent = found[0]
    assert n == ("" if int(extent) <= OTRANS_UNROLL else f" {OTRANS_UNROLL}")
    # The loop lies after the M staging: inside the OTrans part.
    start, _ = otrans_span(kernel)
    assert OTRANS_LOOP.search(kernel.body, start)


def test_otrans_unroll_only_adds_a_pragma() -> None:
    kernel = fused_kernel("fp16-m2", "full", True)
    bare = Kernel(kernel.name, kernel.launch_bounds, kernel.params,
                  regex.sub(r"^[ ]*#pragma unroll\n(?=[ ]*for \(int ot_)", "", kernel.body,
                            flags=regex.M))
    assert not OTRANS_LOOP.search(bare.body)
    assert unroll_otrans(bare, 4) == kernel


def test_otrans_unroll_needs_the_full_kernel() -> None:
    with pytest.raises(ReconstructError, match="unroll_otrans: expected one `// Full fusion:`"):
        unroll_otrans(fused_kernel("fp16-m2", "shmem", True), 4)


def test_otrans_unrolls_further_when_it_loads_a_residual() -> None:
    kernel = fused_kernel("fp16-m2", "full", True)
    assert otrans_unroll_factor(kernel) == OTRANS_UNROLL
    with_residual = Kernel(kernel.name, kernel.launch_bounds,
                           (*kernel.params, Param("half* __restrict__", "residual_ptr")),
                           kernel.body)
    assert otrans_unroll_factor(with_residual) == OTRANS_UNROLL_RESIDUAL > OTRANS_UNROLL
