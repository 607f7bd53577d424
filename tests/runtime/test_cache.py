"""The runtime's JIT build cache: keyed by the library's source, arch and nvcc version, built
once under concurrent callers, reused afterwards."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from toolchain import needs_nvcc

from wino_tvm.kernels.lane.config import LaneConfig
from wino_tvm.runtime import cache
from wino_tvm.workload import Conv2dWorkload

WL = Conv2dWorkload(1, 8, 16, 32, 32, accum="fp16")
CFG = LaneConfig(tb_n=32, tb_k=32, groups=2)


@pytest.fixture
def fake_nvcc(monkeypatch, tmp_path: Path) -> list[Path]:
    """A compiler that writes a dummy library slowly and counts its calls."""
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_nvcc_version", lambda: "13.0.test")
    calls = []

    def compile_library_source(source: Path, arch: str, library: Path) -> Path:
        calls.append(source)
        time.sleep(0.2)
        library.write_bytes(b"not a real library")
        return library
    monkeypatch.setattr(cache, "compile_library_source", compile_library_source)
    return calls


def test_concurrent_builds_compile_once(fake_nvcc: list[Path]) -> None:
    paths = []
    threads = [threading.Thread(target=lambda: paths.append(cache.build(WL, CFG, "sm_90",
                                                                        quiet=True)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(fake_nvcc) == 1 and len(set(paths)) == 1 and paths[0].is_file()
    assert (paths[0].parent / "library.cu").read_text() == cache.library_source(WL, CFG, "sm_90")
    assert cache.build(WL, CFG, "sm_90") == paths[0] and len(fake_nvcc) == 1


def test_key_changes_with_config_arch_and_nvcc(fake_nvcc: list[Path], monkeypatch) -> None:
    first = cache.library_path(WL, CFG, "sm_90")[0]
    assert cache.library_path(WL, CFG.with_(stages=3), "sm_90")[0] != first
    assert cache.library_path(WL, CFG, "sm_80")[0] != first
    monkeypatch.setattr(cache, "_nvcc_version", lambda: "13.1.test")
    assert cache.library_path(WL, CFG, "sm_90")[0] != first
    assert first.parent.name.startswith(f"{WL.key}-{CFG.name(WL)}-")


def test_build_all_reports_each_failure_and_builds_the_rest(fake_nvcc: list[Path], capsys
                                                            ) -> None:
    bad = LaneConfig(tb_n=32, tb_k=48)  # not a chunk size: generate refuses it
    results = cache.build_all([(WL, CFG), (WL, bad)], "sm_90", jobs=2)
    assert isinstance(results[0], Path) and isinstance(results[1], Exception)
    assert "tb_k=48" in str(results[1])
    err = capsys.readouterr().err
    assert "compiling 2 kernel libraries" in err and "[2/2]" in err


@needs_nvcc
@pytest.mark.nvcc
def test_real_build_is_cached(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    path = cache.build(WL, CFG, "sm_90")
    assert path.is_file() and path.stat().st_size > 10_000
    monkeypatch.setattr(cache, "compile_library_source", lambda *a: pytest.fail("rebuilt"))
    assert cache.build(WL, CFG, "sm_90") == path
