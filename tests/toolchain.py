"""What the machine running the tests has: nvcc, an NVIDIA GPU (skip markers for both), and
the steps the template kernels' tests share: writing their variants, reading ptxas's report,
building for the GPU and checking a run."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.errors import NoGpu, NvccNotFound
from wino_tvm.harness import Kernels, workload_spec, write_artifact
from wino_tvm.kernels import FamilyConfig
from wino_tvm.runner import compile_program, detect_arch, find_nvcc, run_program
from wino_tvm.workload import Conv2dWorkload


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


def on_gpu(test: Callable) -> Callable:
    """Marks test as one that runs a program on this machine's GPU (`-m gpu`), skipped without
    nvcc or a GPU."""
    return pytest.mark.gpu(needs_nvcc(pytest.mark.skipif(gpu_arch() is None,
                                                         reason="no NVIDIA GPU")(test)))


def write_variants(root: Path, variants: Mapping[str, tuple[Conv2dWorkload, FamilyConfig]],
                   fill: Callable[[Conv2dWorkload, FamilyConfig], Kernels]) -> dict[str, Path]:
    """Each variant's artifact under root/<name>, its config first checked against the H200."""
    dirs = {}
    for name, (wl, cfg) in variants.items():
        assert cfg.problems(wl, KNOWN_DEVICES["h200"]) == [], name
        dirs[name] = root / name
        write_artifact(workload_spec(wl, cfg.fusion, cfg.name(wl), "test", fill(wl, cfg)),
                       dirs[name])
    return dirs


def variant_fixtures(family: str,
                     variants: Mapping[str, tuple[Conv2dWorkload, FamilyConfig]],
                     fill: Callable[[Conv2dWorkload, FamilyConfig], Kernels]) -> tuple:
    """A template family's module fixtures: `artifacts` (its variants written once) and
    `binaries` (each built for this machine's GPU); a test module binds both names."""

    @pytest.fixture(scope="module")
    def artifacts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
        return write_variants(tmp_path_factory.mktemp(family), variants, fill)

    @pytest.fixture(scope="module")
    def binaries(artifacts: dict[str, Path]) -> dict[str, Path]:
        return compile_for_gpu(artifacts)

    return artifacts, binaries


def assert_no_spills(lines: list[str], kernel: str, where: object, spill_bytes: int = 0) -> None:
    """ptxas's report (compile_check) of kernel: no spills (at most spill_bytes each way where a
    caller allows a few outside the MMA loop) and at most 255 registers (the accumulators' 128
    and more: a spill would cost it most), and no wgmma fence or wait that ptxas inserted itself
    where registers change between wgmmas (slow: an injected wait serialises every chunk's
    MMAs; experiments: tune_persist)."""
    text = "\n".join(lines)
    # ptxas reports each kernel's spills, then its registers
    found = re.search(rf"{kernel}.*?(\d+) bytes spill stores, (\d+) bytes spill loads.*?Used "
                      r"(\d+) registers", text, re.S)
    assert found, (where, text)
    stores, loads, registers = (int(v) for v in found.group(1, 2, 3))
    assert max(stores, loads) <= spill_bytes and registers <= 255, (where, text)
    for injected in ("warpgroup.arrive is injected", "warpgroup.wait is injected", "serialized"):
        assert injected not in text, (where, injected)


def assert_library_compiles(root: Path, wl: Conv2dWorkload, cfg: FamilyConfig,
                            fill: Callable[[Conv2dWorkload, FamilyConfig], Kernels]) -> None:
    """cfg's kernels for wl built as the runtime's shared library for sm_90 under root."""
    from wino_tvm.library import KERNELS_FILE, compile_library

    spec = workload_spec(wl, cfg.fusion, cfg.name(wl), "test", fill(wl, cfg))
    write_artifact(spec, root, {KERNELS_FILE: spec.kernels_source})
    assert compile_library(root, "sm_90").stat().st_size > 0


def compile_for_gpu(artifacts: dict[str, Path]) -> dict[str, Path]:
    """Every artifact built for this machine's GPU, in parallel (nvcc is the slow part)."""
    arch = gpu_arch()
    with ThreadPoolExecutor(len(artifacts)) as pool:
        return dict(zip(artifacts, pool.map(lambda d: compile_program(d, arch),
                                            artifacts.values()), strict=True))


def assert_correct_on_gpu(binary: Path, exact: bool = False) -> None:
    """Two checks on fresh inputs against the float64 reference, and a short timing. exact:
    a kernel whose every rounding is exact for the harness's data (int8 into an f32 y on fp16
    MMAs with fp32 sums) must match it to the bit; any other shows some rounding error, so a
    zero would mean the check compared nothing."""
    record = run_program(binary, ["--checks", "2", "--warmup", "2", "--iters", "5"],
                         timeout_s=300)
    assert record["correct"] is True and record["nonfinite"] == 0
    if exact:
        assert record["rel_l2_err"] == 0 and record["max_abs_err"] == 0
    else:
        assert 0 < record["rel_l2_err"] < record["tolerance"]
