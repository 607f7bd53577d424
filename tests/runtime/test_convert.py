"""wino_tvm.convert, wino_tvm.nn.Conv2d and wino_tvm.conv2d on the CPU: the rewritten graph
(BatchNorm folded, residual add and ReLU fused) computes what the model did, ineligible
layers stay and say why, and CPU tensors run as PyTorch runs them."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import wino_tvm  # noqa: E402
from wino_tvm.errors import WinoError  # noqa: E402
from wino_tvm.nn import Conv2d, choices, convert, format_report  # noqa: E402
from wino_tvm.runtime.dispatch import unsupported_call  # noqa: E402


class Block(nn.Module):
    """ResNet's BasicBlock shape: conv-bn-relu, conv-bn, + identity (after a 1x1), relu."""

    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)
        self.down = nn.Conv2d(c, c, 1)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.down(x)
        return self.relu(out)


class Untraceable(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(16, 16, 3, padding=1)

    def forward(self, x):
        if x.sum() > 0:  # data-dependent control flow: torch.fx cannot trace it
            return self.conv(x)
        return x


def model() -> nn.Module:
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), Block(16),
                      nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.Conv2d(16, 16, 3, padding=1))
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-1, 1)
            mod.running_var.uniform_(0.5, 2)
            mod.weight.data.uniform_(0.5, 1.5)
            mod.bias.data.uniform_(-1, 1)
    return m.eval()


def test_converted_graph_computes_what_the_model_did(capsys):
    m = model()
    x = torch.randn(2, 3, 9, 11)
    with torch.no_grad():
        expected = m(x)
        converted = convert(m)
        got = converted(x)
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
    rows = {row.name: row for row in converted.wino_report}
    assert rows["0"].detail == "fused ReLU"
    assert rows["2.conv1"].detail == "fused BatchNorm 2.bn1 + ReLU"
    assert rows["2.conv2"].detail == "fused BatchNorm 2.bn2 + residual add + ReLU"
    assert rows["4"].detail == "no fusion"
    assert not rows["2.down"].converted and "kernel_size=(1, 1)" in rows["2.down"].detail
    assert not rows["3"].converted and "stride=(2, 2)" in rows["3"].detail
    printed = capsys.readouterr().out
    assert printed.startswith("wino_tvm.convert: 4 of 6 Conv2d layers converted")
    layers = [mod for mod in converted.modules() if isinstance(mod, Conv2d)]
    assert len(layers) == 4 and not any(p.requires_grad for mod in layers
                                        for p in mod.parameters())
    assert not any(isinstance(mod, nn.BatchNorm2d) for mod in converted.modules())


def test_untraceable_model_is_converted_without_fusion():
    m = Untraceable().eval()
    x = torch.rand(1, 16, 8, 8)
    expected = m(x)
    converted = convert(m, verbose=False)
    assert converted is m and isinstance(m.conv, Conv2d)
    (row,) = converted.wino_report
    assert row.converted and "torch.fx could not trace the model" in row.detail
    torch.testing.assert_close(converted(x), expected)


def test_training_batchnorm_is_not_folded():
    m = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16))  # train mode
    converted = convert(m, verbose=False)
    assert converted.wino_report[0].detail == "no fusion"
    assert any(isinstance(mod, nn.BatchNorm2d) for mod in converted.modules())


def test_nn_conv2d_refuses_what_it_cannot_run():
    for kwargs, message in (({"kernel_size": 5, "padding": 2}, "kernel_size=(5, 5)"),
                            ({"stride": 2}, "stride=(2, 2)"),
                            ({"dilation": 2}, "dilation=(2, 2)"),
                            ({"groups": 2}, "groups=2")):
        pattern = "3x3 convolutions with stride 1.*" + re.escape(message)
        with pytest.raises(WinoError, match=pattern):
            Conv2d(16, 16, **{"kernel_size": 3, "padding": 1, **kwargs})


def test_cpu_and_float32_and_autograd_run_as_pytorch_runs_them():
    layer = Conv2d(16, 32, relu=True)
    x = torch.randn(2, 16, 7, 5, requires_grad=True)
    y = layer(x)
    expected = torch.relu(torch.nn.functional.conv2d(x, layer.weight, layer.bias, padding=1))
    torch.testing.assert_close(y, expected)
    y.sum().backward()  # the PyTorch path keeps autograd
    assert x.grad is not None and layer.choices == {}
    assert "not on a CUDA device" in unsupported_call(x, layer.weight, None)
    residual = torch.randn(2, 32, 7, 5)  # added before the ReLU
    got = layer(x.detach(), residual)
    want = torch.relu(torch.nn.functional.conv2d(x.detach(), layer.weight, layer.bias,
                                                 padding=1) + residual)
    torch.testing.assert_close(got, want)


def test_functional_conv2d_on_cpu_matches_pytorch():
    x, w, b = torch.randn(1, 16, 6, 6), torch.randn(8, 16, 3, 3), torch.randn(8)
    torch.testing.assert_close(wino_tvm.conv2d(x, w, b, relu=True),
                               torch.relu(torch.nn.functional.conv2d(x, w, b, padding=1)))
    with pytest.raises(ValueError, match=r"takes 3x3 weights \(K, C, 3, 3\), not \(8, 16, 1, 1\)"):
        wino_tvm.conv2d(x, torch.randn(8, 16, 1, 1))


def test_pad_channels_appends_zero_channels_in_channels_last():
    from wino_tvm.runtime.layer import pad_channels

    x = torch.randn(2, 3, 5, 7).contiguous(memory_format=torch.channels_last)
    y = pad_channels(x, 16)
    assert y.shape == (2, 16, 5, 7) and y.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(y[:, :3], x) and not y[:, 3:].any()
    assert pad_channels(y, 16) is y


def test_choices_lists_nothing_before_a_gpu_run():
    converted = convert(model(), verbose=False)
    converted(torch.randn(1, 3, 8, 8))
    assert choices(converted) == []


@pytest.mark.parametrize("n, c, h, w", [(2, 16, 5, 7), (1, 16, 1, 1), (1, 8, 1, 9)])
def test_operator_fake_gives_a_channels_last_output(n, c, h, w):
    """The output's strides are torch.empty(memory_format=channels_last)'s, size-1 dims too."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    import wino_tvm.runtime.ops  # noqa: F401  (registers wino_tvm::conv2d)

    with FakeTensorMode():
        x = torch.empty(n, c, h, w, dtype=torch.float16).contiguous(
            memory_format=torch.channels_last)
        y = torch.ops.wino_tvm.conv2d(x, None, None, 0, 32)
    assert y.shape == (n, 32, h, w) and y.dtype == torch.float16
    assert y.stride() == torch.empty(n, 32, h, w, memory_format=torch.channels_last).stride()


def test_released_handles_give_their_workspace_back():
    """A kernel's handle lives as long as the kernel: released, its workspace is PyTorch's
    again, and the operator refuses the handle with the fix."""
    import gc
    import weakref

    from wino_tvm.runtime import ops

    workspace = torch.empty(64, dtype=torch.uint8)
    held = weakref.ref(workspace)
    handle = ops.register(object(), workspace)
    del workspace
    other = ops.register(object(), torch.empty(1))
    assert held() is not None and other != handle
    ops.release(handle)
    ops.release(other)
    gc.collect()
    assert held() is None
    x = torch.empty(1, 16, 4, 4, dtype=torch.float16).contiguous(
        memory_format=torch.channels_last)
    with pytest.raises(WinoError, match=f"kernel {handle} is not registered .*convert the model"):
        ops.run(x, None, None, handle, 16)



class NormConv(nn.Module):
    """A diffusion decoder's pattern: GroupNorm, SiLU, conv; then a GroupNorm alone."""

    def __init__(self) -> None:
        super().__init__()
        self.norm, self.conv = nn.GroupNorm(4, 16), nn.Conv2d(16, 16, 3, padding=1)
        self.act, self.out = nn.SiLU(), nn.GroupNorm(2, 16)

    def forward(self, x):
        h = self.conv(torch.nn.functional.silu(self.norm(x)))
        return self.act(self.out(h)) + self.out(h)  # out runs twice: two layers


def test_groupnorm_and_the_silu_after_it_are_converted():
    from wino_tvm.nn import GroupNorm

    torch.manual_seed(0)
    m = NormConv().eval()
    x = torch.randn(2, 16, 6, 5)
    expected = m(x)
    converted = convert(m, verbose=False)
    rows = {row.name: row for row in converted.wino_report}
    assert (rows["norm"].kind, rows["norm"].detail) == ("GroupNorm", "fused SiLU")
    fused = [row for row in rows.values() if row.name.startswith("out_wino")]
    assert sorted(row.detail for row in fused) == ["fused SiLU", "no fusion"]
    assert isinstance(converted.norm, GroupNorm) and converted.norm.silu
    functions = {node.target for node in converted.graph.nodes if node.op == "call_function"}
    assert torch.nn.functional.silu not in functions
    assert not any(isinstance(mod, nn.SiLU) for mod in converted.modules())
    assert format_report(converted.wino_report).startswith(
        "wino_tvm.convert: 1 of 1 Conv2d layers, 3 of 3 GroupNorm layers converted")
    torch.testing.assert_close(converted(x), expected)  # the CPU runs them as PyTorch does


def test_norms_off_leaves_groupnorm_to_pytorch():
    converted = convert(NormConv().eval(), norms=False, verbose=False)
    assert [row.kind for row in converted.wino_report] == ["Conv2d"]
    assert type(converted.norm) is nn.GroupNorm


def test_group_norm_says_why_pytorch_runs_a_call():
    from wino_tvm.nn import GroupNorm
    from wino_tvm.runtime.norm import unsupported

    assert unsupported(torch.randn(1, 16, 4, 4), 4, None) == "x is not on a CUDA device"
    layer = GroupNorm(4, 16, silu=True)  # a CPU layer runs as PyTorch runs it
    x = torch.randn(2, 16, 3, 5)
    want = torch.nn.functional.silu(torch.nn.functional.group_norm(x, 4, layer.weight,
                                                                   layer.bias, layer.eps))
    torch.testing.assert_close(layer(x), want)
    assert layer.choices == {} and "silu=True" in repr(layer)
