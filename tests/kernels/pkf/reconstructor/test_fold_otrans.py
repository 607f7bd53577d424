"""The full kernel's OTrans sums start at their first term (reconstructor.full.fold_otrans_sums),
on stored TVM output."""

from __future__ import annotations

import pytest
import regex
from stored_sources import full_kernel, stored

from wino_tvm.kernels.pkf.reconstructor.full import fold_otrans_sums, fuse_full, otrans_span
from wino_tvm.kernels.pkf.reconstructor.identify import identify_stages
from wino_tvm.kernels.pkf.reconstructor.launch import Launch
from wino_tvm.kernels.pkf.reconstructor.passes import strip_warp_barriers
from wino_tvm.kernels.pkf.reconstructor.pipeline import Options, reconstruct
from wino_tvm.kernels.pkf.reconstructor.source import Kernel, split_kernels
from wino_tvm.kernels.pkf.reconstructor.specialise import start_sums_at_first_term

# `X[i] = 0x0p+0f/*0.000000e+00*/;` (float) or `= 0;` (int): TVM's start of a sum.
ZERO_START = regex.compile(r"^[ ]*(\w+\[\d+\]) = (?:0x0p\+0f/\*0\.0+e\+00\*/|0);\n", regex.M)


def unfolded_full(name: str) -> Kernel:
    """fuse_full's kernel before the fold, as the pipeline builds it."""
    source, launches = stored(name)
    by_name = {entry["name"]: Launch.from_dict(entry) for entry in launches}
    stages = identify_stages(split_kernels(source).kernels)
    kernel, _ = fuse_full(stages.itrans, strip_warp_barriers(stages.bgemm), stages.otrans,
                          by_name[stages.itrans.name], by_name[stages.bgemm.name],
                          by_name[stages.otrans.name])
    return kernel


def otrans_part(kernel: Kernel) -> str:
    start, end = otrans_span(kernel)
    return kernel.body[start:end]


@pytest.mark.parametrize("name", ["fp16-m2", "int8-m2"])
def test_fold_removes_every_zero_start_and_touches_nothing_before_otrans(name: str) -> None:
    before = unfolded_full(name)
    after = fold_otrans_sums(before)
    starts = ZERO_START.findall(otrans_part(before))
    assert len(starts) >= 12  # 8 sums of M A and 4 of A^T (M A) per (tile, channel)
    assert not ZERO_START.findall(otrans_part(after))
    start, _ = otrans_span(before)
    assert after.body[:start] == before.body[:start]
    # Each removed start is one line less, and its first `v = (v + e);` became `v = e;`.
    assert after.body.count("\n") == before.body.count("\n") - len(starts)
    for target in set(starts):
        first_terms = regex.findall(rf"^[ ]*{regex.escape(target)} = (?!\({regex.escape(target)} )",
                                    otrans_part(after), regex.M)
        assert len(first_terms) == starts.count(target)


@pytest.mark.parametrize("name", ["fp16-m2", "int8-m2"])
def test_reconstructed_full_kernel_has_its_otrans_sums_folded(name: str) -> None:
    part = otrans_part(full_kernel(reconstruct(*stored(name), Options("full")).source))
    assert start_sums_at_first_term(part) == part
    assert not ZERO_START.findall(part)


def test_other_fusions_keep_tvms_otrans() -> None:
    """OTrans of the unfused and PKF pipelines stays as TVM wrote it (the paper's kernels)."""
    for fusion in ("none", "shmem"):
        source = reconstruct(*stored("fp16-m2"), Options(fusion)).source
        otrans = next(k for k in split_kernels(source).kernels if "otrans" in k.name)
        assert ZERO_START.findall(otrans.body), fusion
