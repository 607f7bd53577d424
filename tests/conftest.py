"""Fixtures that several test modules share, and --no-skips: the suites' commands (make test,
the GPU suite) fail on any skipped test, so a missing tool (nvcc, cuobjdump, a GPU) can never
turn a run green."""

from __future__ import annotations

from dataclasses import asdict

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--no-skips", action="store_true",
                     help="fail every test that would skip (a missing nvcc, cuobjdump or GPU)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.config.getoption("--no-skips"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under --no-skips: {reason}"


def pytest_ignore_collect(collection_path, config: pytest.Config) -> bool | None:
    """The GPU suite (-m gpu) runs where TVM is not installed: the pkf family's test modules
    generate with TVM, hold no GPU test, and are left out of it rather than failing to import."""
    if config.getoption("markexpr") != "gpu" or "pkf" not in collection_path.parts:
        return None
    import importlib.util

    return importlib.util.find_spec("tvm") is None or None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """GPU tests need a GPU: without one they fail with that message, not an obscure error."""
    from toolchain import gpu_arch

    gpu_tests = [item for item in items if item.get_closest_marker("gpu")]
    if gpu_tests and gpu_arch() is None:
        for item in gpu_tests:
            item.add_marker(pytest.mark.skip(reason="GPU test without an NVIDIA GPU: run the "
                                                    "GPU suite on the GPU machine"))


@pytest.fixture(scope="session")
def one_chunk() -> tuple[str, list[dict]]:
    """Fresh TVM output, fp16 m=2 with TB_K = C (one channel chunk, so the full kernel's warps
    transform whole tiles): three tile blocks, the last one partial; fp16 accumulators, so that
    the M slice fits in V's and the kernel can persist."""
    from wino_tvm.kernels.pkf.codegen import generate
    from wino_tvm.kernels.pkf.config import PkfConfig
    from wino_tvm.kernels.pkf.schedule import scheduled_module
    from wino_tvm.workload import Conv2dWorkload

    wl = Conv2dWorkload(2, 11, 13, 64, 32, dtype="fp16", m=2, accum="fp16")
    proto = generate(scheduled_module(wl, PkfConfig(32, 32, 64, fusion="full")))
    return proto.source, [asdict(k) for k in proto.launches]
