"""The runtime on a GPU: the operator passes torch.library.opcheck, layers match float64,
converted models replay in CUDA graphs and run under torch.compile, weights reload when they
change. Run on the GPU machine: pytest -m gpu tests/runtime."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu

import torch.nn.functional as F  # noqa: E402
from gpu_tensors import assert_graph_replays, cl, kernel_cache, rel_l2  # noqa: E402, F401
from torch import nn  # noqa: E402

import wino_tvm  # noqa: E402
from wino_tvm.math.tolerance import rel_l2_tolerance  # noqa: E402
from wino_tvm.nn import Conv2d, choices, convert  # noqa: E402
from wino_tvm.runtime.choice import Policy  # noqa: E402
from wino_tvm.runtime.dispatch import device_of  # noqa: E402
from wino_tvm.runtime.layer import ConvKernel  # noqa: E402
from wino_tvm.runtime.select import Trial  # noqa: E402
from wino_tvm.workload import Conv2dWorkload  # noqa: E402

TRUST = Policy(mode="trust")  # the first candidate, so that the wino-tvm kernel is what runs


def test_operator_passes_opcheck():
    limits, arch = device_of(0)
    base = Conv2dWorkload(2, 20, 36, 64, 64, epilogue=("bias",))
    from wino_tvm.runtime.choice import candidates

    wl, cfg, _ = candidates(base, limits, TRUST)[0]
    trial = Trial.of(base, limits.l2_bytes)
    kernel = ConvKernel(wl, cfg, arch, trial.w)
    args = (trial.xs[0], trial.bias, None, kernel.handle, base.k)
    torch.library.opcheck(torch.ops.wino_tvm.conv2d.default, args)


@pytest.mark.parametrize("shape, fused", [
    ((1, 56, 56, 64, 64), ()), ((3, 13, 37, 64, 128), ("residual", "relu")),
    ((2, 14, 14, 256, 256), ("relu",)), ((1, 28, 20, 128, 64), ("residual", "relu")),
    ((2, 30, 34, 3, 64), ("relu",)), ((1, 17, 23, 4, 128), ("residual",)),  # C padded to 16
])
def test_layer_matches_float64(shape, fused):
    n, h, w, c, k = shape
    torch.manual_seed(0)
    layer = Conv2d(c, k, relu="relu" in fused, policy=TRUST).cuda().half()
    layer.weight.data /= 3 * c**0.5
    layer.weight.requires_grad_(False)
    layer.bias.requires_grad_(False)
    x = cl(torch.rand(n, c, h, w) * 2 - 1)
    residual = cl(torch.rand(n, k, h, w) * 2 - 1) if "residual" in fused else None
    y = layer(x, residual)
    ref = F.conv2d(x.double(), layer.weight.double(), layer.bias.double(), padding=1)
    ref = ref + residual.double() if residual is not None else ref
    ref = ref.relu() if "relu" in fused else ref
    (choice,) = layer.choices.values()
    assert choice.config is not None, choice.reason
    assert y.is_contiguous(memory_format=torch.channels_last) and torch.isfinite(y).all()
    assert 0 < rel_l2(y, ref) <= rel_l2_tolerance(choice.wl), choice.name


def small_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                         nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(128, 128, 3, padding=1)).eval()


def test_cuda_graph_replays_the_converted_model():
    model = convert(small_model().cuda().half().to(memory_format=torch.channels_last),
                    policy=TRUST, verbose=False)
    x = cl(torch.rand(2, 64, 40, 48))
    with torch.inference_mode():
        eager = model(x)  # decides and builds every layer's kernel
        assert all(choice.config is not None for *_, choice in choices(model))
        assert_graph_replays(model, x, eager)


def test_torch_compile_runs_the_converted_model():
    model = convert(small_model().cuda().half().to(memory_format=torch.channels_last),
                    policy=TRUST, verbose=False)
    x = cl(torch.rand(2, 64, 40, 48))
    with torch.inference_mode():
        eager = model(x)
        compiled = torch.compile(model)
        got = compiled(x)
    assert rel_l2(got, eager) < 1e-3


def test_changed_weights_are_transformed_again():
    layer = Conv2d(64, 64, policy=TRUST).cuda().half().requires_grad_(False)
    x = cl(torch.rand(1, 64, 24, 24))
    first = layer(x)
    with torch.no_grad():
        layer.weight.mul_(2)
        layer.bias.mul_(2)
    assert rel_l2(layer(x), 2 * first) < 1e-3


def test_functional_conv2d_on_gpu():
    x = cl(torch.rand(1, 64, 30, 30) * 2 - 1)
    w = (torch.rand(64, 64, 3, 3, device="cuda") * 2 - 1).half() / 24
    y = wino_tvm.conv2d(x, w, relu=True, policy=TRUST)
    ref = F.conv2d(x.double(), w.double(), padding=1).relu()
    assert rel_l2(y, ref) < 1.7e-3


def test_gradients_fall_back_to_pytorch():
    layer = Conv2d(64, 64).cuda().half()
    x = cl(torch.rand(1, 64, 16, 16)).requires_grad_()
    layer(x).sum().backward()
    assert x.grad is not None and layer.choices == {}


def test_verified_choices_are_never_slower_than_cudnn():
    layer = Conv2d(64, 64, relu=True).cuda().half().requires_grad_(False)
    for shape in ((1, 64, 8, 8), (1, 64, 360, 640)):
        layer(cl(torch.rand(shape)))
    for choice in layer.choices.values():
        assert choice.config is None or choice.speedup > 1.0, choice.reason


def test_a_broadcast_residual_runs_as_pytorch_runs_it():
    """A residual that broadcasts (a [1, K, 1, 1] mean, as EDSR adds) is no kernel residual."""
    layer = Conv2d(64, 64, policy=TRUST).cuda().half().requires_grad_(False)
    x, mean = cl(torch.rand(1, 64, 16, 16)), torch.rand(1, 64, 1, 1, device="cuda").half()
    want = F.conv2d(x, layer.weight, layer.bias, padding=1) + mean
    assert torch.equal(layer(x, mean), want) and layer.choices == {}


def test_f44_layers_keep_only_their_weights():
    """f44's V and M come from PyTorch's allocator for each call: a layer keeps only its U, and
    two layers run in turn take one scratch between them, not one each."""
    torch.manual_seed(0)
    bound = Policy(mode="trust", bound=3e-3)
    layers = [Conv2d(512, 512, policy=bound).cuda().half().requires_grad_(False)
              for _ in range(2)]
    for layer in layers:
        layer.weight.data /= 3 * 512**0.5
    x = cl(torch.rand(1, 512, 128, 128) * 2 - 1)
    with torch.inference_mode():
        first = layers[0](x)  # decides and builds
        y = layers[1](first)
        kernel = next(iter(layers[0]._layer.kernels.values()))
        assert kernel.cfg.FAMILY == "f44", layers[0].choices
        scratch = kernel.library.scratch_bytes
        # U: 36 x 512 x 512 halves (19 MB); V and M: 36 x 1024 tiles x 512 halves each
        assert layers[0].workspace_bytes < scratch / 3
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        again = layers[1](layers[0](x))
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - before
    assert peak < 1.5 * scratch, (peak, scratch)
    assert torch.equal(again, y)  # the reused scratch holds nothing a call needs
    ref = F.conv2d(x.double(), layers[0].weight.double(), layers[0].bias.double(), padding=1)
    (choice,) = layers[0].choices.values()
    assert 0 < rel_l2(first, ref) <= rel_l2_tolerance(choice.wl)
    assert torch.isfinite(y).all()
    # Captured, the GEMM's and OTrans's early launches become the graph's programmatic edges.
    with torch.inference_mode():
        assert_graph_replays(nn.Sequential(*layers), x, y)
