"""wino_tvm::group_norm on a GPU: float64 agreement (odd shapes, groups that split a channel
vector, a large mean), the operator's opcheck, a converted diffusion block in a CUDA graph, and
the decision at a VAE shape. Run on the GPU machine: pytest -m gpu tests/runtime."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu

import torch.nn.functional as F  # noqa: E402
from gpu_tensors import assert_graph_replays, cl, kernel_cache, rel_l2  # noqa: E402, F401

from wino_tvm.bench.zoo import ResnetBlock  # noqa: E402
from wino_tvm.nn import GroupNorm, convert  # noqa: E402
from wino_tvm.runtime import norm  # noqa: E402
from wino_tvm.runtime.choice import Policy  # noqa: E402

TRUST = Policy(mode="trust")


@pytest.mark.parametrize("shape, groups, silu, offset", [
    ((1, 128, 64, 64), 32, True, 0.0),      # 4 channels a group: a vector spans 2 groups
    ((3, 40, 13, 37), 8, False, 0.0),        # 5 channels a group: groups cut vectors unevenly
    ((2, 24, 9, 11), 3, True, 0.0),          # 3 vectors a pixel, a block of 255 threads
    ((1, 4096, 5, 3), 32, True, 0.0),        # the widest C, one pixel a block row
    ((2, 512, 32, 32), 32, False, 50.0),     # mean 50 next to a spread of 0.6
    ((1, 256, 1, 1), 32, True, 0.0),         # one pixel: 7 of 8 block rows hold none
])
def test_group_norm_matches_float64(shape, groups, silu, offset):
    torch.manual_seed(0)
    n, c, h, w = shape
    x = cl(torch.rand(shape) * 2 - 1 + offset)
    gamma, beta = (torch.rand(c) + 0.5).cuda().half(), (torch.rand(c) - 0.5).cuda().half()
    y = norm.group_norm(x, groups, gamma, beta, 1e-6, silu)
    ref = F.group_norm(x.double(), groups, gamma.double(), beta.double(), 1e-6)
    ref = F.silu(ref) if silu else ref
    assert y.is_contiguous(memory_format=torch.channels_last) and torch.isfinite(y).all()
    assert 0 < rel_l2(y, ref) <= norm.REL_L2_BAR


def test_group_norm_operator_passes_opcheck():
    x = cl(torch.rand(2, 64, 10, 12))
    gamma, beta = torch.rand(64).cuda().half(), torch.rand(64).cuda().half()
    torch.library.opcheck(torch.ops.wino_tvm.group_norm.default, (x, 32, gamma, beta, 1e-5, True))


def test_converted_block_replays_in_a_cuda_graph():
    torch.manual_seed(0)
    block = ResnetBlock(128, 128).eval()
    base = block.cuda().half().to(memory_format=torch.channels_last)
    ref_model = ResnetBlock(128, 128).eval().cuda().double()
    ref_model.load_state_dict(block.state_dict())
    converted = convert(base, policy=TRUST, verbose=False)
    norms = [m for m in converted.modules() if isinstance(m, GroupNorm)]
    assert len(norms) == 2 and all(m.silu for m in norms)
    x = cl(torch.rand(1, 128, 48, 40) * 2 - 1)
    with torch.inference_mode():
        eager = converted(x)
        assert all(choice.wino for m in norms for choice in m.choices.values())
        assert_graph_replays(converted, x, eager)
        assert rel_l2(eager, ref_model(x.double())) < 2e-3


def test_vae_shape_decides_for_the_kernel_and_it_is_faster():
    """At 1x256²x128, 32 groups PyTorch's channels_last GroupNorm reduces with 32 blocks."""
    layer = GroupNorm(32, 128, eps=1e-6, silu=True).cuda().half().requires_grad_(False)
    with torch.inference_mode():
        layer(cl(torch.rand(1, 128, 256, 256) * 2 - 1))
    (choice,) = layer.choices.values()
    assert choice.wino and choice.wino_us < choice.torch_us, choice.reason


def test_nchw_input_runs_as_pytorch_runs_it():
    layer = GroupNorm(8, 64, silu=True).cuda().half().requires_grad_(False)
    x = (torch.rand(1, 64, 12, 12, device="cuda") * 2 - 1).half()  # contiguous, not CL
    want = F.silu(F.group_norm(x, 8, layer.weight, layer.bias, layer.eps))
    assert torch.equal(layer(x), want) and layer.choices == {}
