"""What the runtime's GPU tests share: fp16 channels_last inputs, the error measure, the CUDA
graph check, and a kernel cache of the session's own (import the fixture into a test module to
use it)."""

from __future__ import annotations

import os

import pytest
import torch

from wino_tvm.bench.models import graphed


def cl(t: torch.Tensor) -> torch.Tensor:
    return t.cuda().half().contiguous(memory_format=torch.channels_last)


def rel_l2(y: torch.Tensor, ref: torch.Tensor) -> float:
    y, ref = y.double(), ref.double()
    return float((y - ref).norm() / ref.norm())


def assert_graph_replays(model: torch.nn.Module, x: torch.Tensor, eager: torch.Tensor) -> None:
    """model captured in a CUDA graph computes what it computes eagerly: on x * 0.5 copied into
    the graph's input, then on x again (eager = model(x))."""
    static = x.clone()
    replay, out = graphed(model, static)
    static.copy_(x * 0.5)
    replay()
    torch.cuda.synchronize()
    assert torch.equal(out, model(x * 0.5))
    static.copy_(x)
    replay()
    torch.cuda.synchronize()
    assert torch.equal(out, eager)


@pytest.fixture(autouse=True)
def kernel_cache(tmp_path_factory, monkeypatch):
    """The session's own cache, unless WINO_TVM_CACHE names one (a GPU run's shared cache)."""
    if not os.environ.get("WINO_TVM_CACHE"):
        monkeypatch.setenv("WINO_TVM_CACHE", str(tmp_path_factory.getbasetemp() / "wino_cache"))
