"""One layer's kernel on the GPU: its cached library, and a workspace holding the layer's
transformed weights (PyTorch); a forward's scratch comes from the allocator per call (ops)."""

from __future__ import annotations

import weakref

import torch
import torch.nn.functional as F

from ..kernels import FamilyConfig
from ..workload import Conv2dWorkload
from . import cache, ops


def pad_channels(t: torch.Tensor, channels: int) -> torch.Tensor:
    """t (N, C, H, W, channels_last contiguous) with zero channels after its C, up to
    `channels`, channels_last contiguous: one pad of the NHWC view."""
    if t.shape[1] == channels:
        return t
    return F.pad(t.permute(0, 2, 3, 1), (0, channels - t.shape[1])).permute(0, 3, 1, 2)


class ConvKernel:
    """cfg's kernel for wl with `weight` (K x C x 3 x 3, as torch.nn.Conv2d holds it) already
    transformed, called as kernel(x, bias, residual) on channels_last tensors. Where wl.c is
    more than the layer's C (runtime.choice.kernel_workload), the weight and x get zero
    channels."""

    def __init__(self, wl: Conv2dWorkload, cfg: FamilyConfig, arch: str,
                 weight: torch.Tensor) -> None:
        self.wl, self.cfg = wl, cfg
        self.library = cache.load(cache.build(wl, cfg, arch))
        self.workspace = torch.empty(self.library.workspace_bytes(), dtype=torch.uint8,
                                     device=weight.device)
        self.handle = ops.register(self.library, self.workspace)
        weakref.finalize(self, ops.release, self.handle)
        self.load_weight(weight)

    def load_weight(self, weight: torch.Tensor) -> None:
        """Transform weight into the workspace, on the current stream (the HWIO copy it reads
        is freed to that stream, so the allocator reuses it only after the transform)."""
        hwio = weight.detach().to(torch.float16).permute(2, 3, 1, 0)
        hwio = F.pad(hwio, (0, 0, 0, self.wl.c - hwio.shape[2])).contiguous()
        stream = torch.cuda.current_stream(weight.device).cuda_stream
        self.library.weight_transform(hwio.data_ptr(), self.workspace.data_ptr(), stream)

    def __call__(self, x: torch.Tensor, bias: torch.Tensor | None = None,
                 residual: torch.Tensor | None = None) -> torch.Tensor:
        """x and residual channels_last contiguous, bias float16 (the caller sees to it)."""
        x = pad_channels(x, self.wl.c)
        if torch.compiler.is_compiling():
            return torch.ops.wino_tvm.conv2d(x, bias, residual, self.handle, self.wl.k)
        return ops.run(x, bias, residual, self.handle, self.wl.k)
