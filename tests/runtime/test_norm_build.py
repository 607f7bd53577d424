"""templates/group_norm.cu on the CPU: it builds through the JIT cache (once), its C ABI loads,
and it refuses shapes the kernel cannot take before touching the GPU."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolchain import needs_nvcc

pytest.importorskip("torch")

from wino_tvm.errors import WinoError  # noqa: E402
from wino_tvm.runtime import cache, norm  # noqa: E402


@needs_nvcc
@pytest.mark.nvcc
def test_group_norm_library_builds_once_and_refuses_bad_shapes(monkeypatch, tmp_path: Path):
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    norm.library.cache_clear()
    lib = norm.library("sm_90")
    assert lib.path.is_relative_to(tmp_path) and lib.path.stat().st_size > 10_000
    # partials (12 bytes an image, group and slice) and (mean, rstd) an image and group
    assert lib.workspace_bytes(2, 64 * 64, 128, 32) >= 2 * 32 * (12 + 8)
    for n, hw, c, groups in ((1, 64, 12, 4),      # C not a multiple of 8
                             (1, 64, 64, 24),     # C not a multiple of groups
                             (1, 64, 8192, 32),   # C over 4096
                             (0, 64, 64, 32),     # no image
                             (65536, 1, 64, 32)): # more images than a grid's y dimension
        assert lib.workspace_bytes(n, hw, c, groups) == 0
        with pytest.raises(WinoError, match=r"CUDA error 1 \(invalid argument\)"):
            lib.forward(0, 0, 0, 0, 0, (n, hw, c, groups), 1e-5, True, 0)
    norm.library.cache_clear()
    monkeypatch.setattr(cache, "compile_library_source", lambda *a: pytest.fail("rebuilt"))
    assert norm.library("sm_90").path == lib.path
    norm.library.cache_clear()
