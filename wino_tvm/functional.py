"""wino_tvm.conv2d: one 3x3, stride 1, padding 1 convolution on torch tensors, with the fused
epilogue relu(conv + bias + residual), on a wino-tvm kernel where that is faster than cuDNN."""

from __future__ import annotations

import weakref

import torch

from .runtime.choice import Policy
from .runtime.dispatch import Layer

# One layer per weight tensor (its kernels and transformed weights), so a weight passed again
# is transformed again only when it changed; an entry goes with its weight.
_LAYERS: dict[int, tuple[weakref.ref, Layer]] = {}


def conv2d(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
           residual: torch.Tensor | None = None, relu: bool = False,
           policy: Policy | None = None) -> torch.Tensor:
    """y = relu?(conv3x3(x, weight) + bias + residual): x (N, C, H, W) and residual (N, K, H, W)
    in any memory format (channels_last avoids a copy), weight (K, C, 3, 3) as
    torch.nn.Conv2d holds it, bias (K). Runs as PyTorch runs it where no wino-tvm kernel is
    faster, on the CPU, in float32 or when autograd needs gradients."""
    if weight.dim() != 4 or tuple(weight.shape[2:]) != (3, 3):
        raise ValueError(f"wino_tvm.conv2d takes 3x3 weights (K, C, 3, 3), not "
                         f"{tuple(weight.shape)}: use torch.nn.functional.conv2d")
    entry = _LAYERS.get(id(weight))
    if entry is None or entry[0]() is not weight:
        entry = _LAYERS[id(weight)] = (weakref.ref(weight), Layer(policy or Policy()))
        weakref.finalize(weight, _LAYERS.pop, id(weight), None)
    return entry[1](x, weight, bias, residual, relu)
