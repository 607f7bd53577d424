"""U staged with cp.async ahead of ITrans (reconstructor.async_copy) on stored TVM output."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from stored_sources import full_kernel, stored

from wino_tvm.kernels.pkf.reconstructor.async_copy import COMMIT, WAIT, async_u_staging
from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.passes import SHMEM_MARK
from wino_tvm.kernels.pkf.reconstructor.pipeline import Options, reconstruct

U_COPY = re.compile(r"^\s*\*\(\w+\*\)\(.*\) = \*\(\w+\*\)\(U_ptr \+.*;$")


@pytest.mark.parametrize("name", ["fp16-m2", "int8-m2"])
def test_u_copies_become_cp_async_ahead_of_itrans(name: str) -> None:
    plain = full_kernel(reconstruct(*stored(name), Options("full", async_u=False)).source).body
    fast = full_kernel(reconstruct(*stored(name), Options("full")).source).body
    copies = [ln for ln in plain.splitlines() if U_COPY.match(ln)]
    issued = [ln for ln in fast.splitlines() if "cp.async.cg.shared.global" in ln]
    assert copies and len(issued) == len(copies)
    assert not any(U_COPY.match(ln) for ln in fast.splitlines())
    # In the channel loop: copies, commit, then ITrans; the wait comes after ITrans's barrier,
    # right before the one that opens the MMA.
    chunk = fast[fast.index("for (int c_0 = 0;"):]
    assert (chunk.index("cp.async.cg") < chunk.index(COMMIT) < chunk.index(SHMEM_MARK)
            < chunk.index(WAIT) < chunk.index("load_matrix_sync"))
    after_wait = chunk[chunk.index(WAIT):].splitlines()
    assert after_wait[1].strip() == "__syncwarp();"
    # ITrans's barrier: a block's where its warps transform whole tiles (fp16), else a warp's.
    itrans_barrier = "__syncthreads();" if name.startswith("fp16") else "__syncwarp();"
    assert chunk[:chunk.index(WAIT)].rstrip().endswith(itrans_barrier)
    # Nothing else changed: the same lines, the copies traded for cp.async, commit and wait.
    others = Counter(ln for ln in plain.splitlines() if not U_COPY.match(ln))
    kept = Counter(ln for ln in fast.splitlines()
                   if "cp.async" not in ln)
    assert kept == others


def test_a_kernel_without_u_copies_is_refused() -> None:
    full = full_kernel(reconstruct(*stored("fp16-m2"), Options("full")).source)
    with pytest.raises(ReconstructError, match="async_u_staging: .* no vector copy of U"):
        async_u_staging(full)


def test_builds_stage_u_asynchronously_from_32_tiles_per_block(tmp_path) -> None:
    from wino_tvm.artifact import build_artifact
    from wino_tvm.kernels.pkf.config import PkfConfig
    from wino_tvm.workload import Conv2dWorkload

    wl = Conv2dWorkload(1, 8, 8, 32, 32, dtype="fp16", m=2)
    for tb_m, expected in ((16, False), (32, True)):
        cfg = PkfConfig(tb_m, 16, 16, fusion="full")
        assert cfg.async_u is expected
        build_artifact(wl, cfg, tmp_path / str(tb_m), log=lambda _m: None)
        source = (tmp_path / str(tb_m) / "reconstructed.cu").read_text()
        assert ("cp.async.cg.shared.global" in source) is expected
