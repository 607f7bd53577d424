"""The PyTorch operator: wino_tvm::conv2d, one registered kernel's forward call on the current
stream (torch.library.custom_op, with a fake for torch.compile and CUDA graphs).

A kernel is registered with its workspace, which holds the layer's transformed weights. The
operator takes the handle, not the workspace: its layout is relative to a 2 MiB boundary of
the buffer's address (the library aligns it), so a copy at another address would read the
weights at the wrong offsets; registered, it stays where it was filled."""

from __future__ import annotations

import threading

import torch

from ..errors import WinoError
from ..library import WinoLibrary

# (library, workspace) per handle, kept for the process.
_KERNELS: list[tuple[WinoLibrary, torch.Tensor]] = []
_LOCK = threading.Lock()


def register(library: WinoLibrary, workspace: torch.Tensor) -> int:
    """The handle wino_tvm::conv2d takes for library with this workspace."""
    with _LOCK:
        _KERNELS.append((library, workspace))
        return len(_KERNELS) - 1


def _output(x: torch.Tensor, out_channels: int) -> torch.Tensor:
    n, _, h, w = x.shape
    return torch.empty((n, out_channels, h, w), dtype=x.dtype, device=x.device,
                       memory_format=torch.channels_last)


def run(x: torch.Tensor, bias: torch.Tensor | None, residual: torch.Tensor | None,
        handle: int, out_channels: int) -> torch.Tensor:
    """What wino_tvm::conv2d computes, called directly where no graph is traced (the
    dispatcher's per-call cost is a sizeable part of a small layer's)."""
    library, workspace = _KERNELS[handle]
    y = _output(x, out_channels)
    library.forward(
        x.data_ptr(), y.data_ptr(), workspace.data_ptr(),
        torch.cuda.current_stream(x.device).cuda_stream,
        bias_ptr=None if bias is None else bias.data_ptr(),
        residual_ptr=None if residual is None else residual.data_ptr())
    return y


@torch.library.custom_op("wino_tvm::conv2d", mutates_args=())
def conv2d(x: torch.Tensor, bias: torch.Tensor | None, residual: torch.Tensor | None,
           handle: int, out_channels: int) -> torch.Tensor:
    """y = epilogue(conv3x3(x)) by the registered kernel `handle` (its transformed weights in
    its workspace). x and residual: N x C (K) x H x W in channels_last memory; bias: K."""
    for name, tensor in (("x", x), ("residual", residual)):
        if tensor is not None and not tensor.is_contiguous(memory_format=torch.channels_last):
            raise WinoError(f"wino_tvm::conv2d: {name} must be channels_last contiguous "
                            f"(x.contiguous(memory_format=torch.channels_last))")
    return run(x, bias, residual, handle, out_channels)


@conv2d.register_fake
def _conv2d_fake(x: torch.Tensor, bias: torch.Tensor | None, residual: torch.Tensor | None,
                 handle: int, out_channels: int) -> torch.Tensor:
    return _output(x, out_channels)
