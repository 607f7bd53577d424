"""The PyTorch operator: wino_tvm::conv2d, one registered kernel's forward call on the current
stream (torch.library.custom_op, with a fake for torch.compile and CUDA graphs).

A kernel is registered with its workspace, which holds the layer's transformed weights. The
operator takes the handle, not the workspace: its layout is relative to a 2 MiB boundary of
the buffer's address (the library aligns it), so a copy at another address would read the
weights at the wrong offsets; registered, it stays where it was filled, until its kernel is
collected (candidates a decision timed and dropped give their workspaces back). A library's scratch
(f44's V and M) is taken from PyTorch's allocator for each call and freed to its stream: the
layers of a model, run in turn, share that memory instead of each holding its own."""

from __future__ import annotations

import itertools
import threading

import torch

from ..errors import WinoError
from ..library import WinoLibrary

# (library, workspace) per handle, while its kernel lives.
_KERNELS: dict[int, tuple[WinoLibrary, torch.Tensor]] = {}
_HANDLES = itertools.count()
_LOCK = threading.Lock()


def register(library: WinoLibrary, workspace: torch.Tensor) -> int:
    """The handle wino_tvm::conv2d takes for library with this workspace."""
    with _LOCK:
        handle = next(_HANDLES)
        _KERNELS[handle] = (library, workspace)
        return handle


def release(handle: int) -> None:
    """Forget handle, whose kernel is gone: its workspace goes back to PyTorch's allocator."""
    with _LOCK:
        _KERNELS.pop(handle, None)


def poisoned_bytes(size: int, device: torch.device | str) -> torch.Tensor:
    """size bytes of 0xFF (NaN as fp16), so that a read of what no kernel wrote shows."""
    return torch.full((size,), 0xFF, dtype=torch.uint8, device=device)


def scratch_for(library: WinoLibrary, device: torch.device | str,
                poison: bool = False) -> torch.Tensor | None:
    """A forward's scratch for library (None: it has none), poisoned_bytes where poison."""
    size = library.scratch_bytes
    if not size:
        return None
    return (poisoned_bytes(size, device) if poison
            else torch.empty(size, dtype=torch.uint8, device=device))


def forward(library: WinoLibrary, x: torch.Tensor, y: torch.Tensor, workspace: torch.Tensor,
            stream: int, scratch: torch.Tensor | None, bias: torch.Tensor | None = None,
            residual: torch.Tensor | None = None, y_scale: torch.Tensor | None = None) -> None:
    """library.forward on tensors; None where the kernels read nothing."""
    def pointer(t: torch.Tensor | None) -> int | None:
        return None if t is None else t.data_ptr()

    library.forward(x.data_ptr(), y.data_ptr(), workspace.data_ptr(), stream,
                    scratch_ptr=pointer(scratch), bias_ptr=pointer(bias),
                    residual_ptr=pointer(residual), y_scale_ptr=pointer(y_scale))


def _output(x: torch.Tensor, out_channels: int) -> torch.Tensor:
    n, _, h, w = x.shape
    return torch.empty((n, out_channels, h, w), dtype=x.dtype, device=x.device,
                       memory_format=torch.channels_last)


def run(x: torch.Tensor, bias: torch.Tensor | None, residual: torch.Tensor | None,
        handle: int, out_channels: int) -> torch.Tensor:
    """What wino_tvm::conv2d computes, called directly where no graph is traced (the
    dispatcher's per-call cost is a sizeable part of a small layer's)."""
    try:
        library, workspace = _KERNELS[handle]
    except KeyError:
        raise WinoError(f"wino_tvm::conv2d: kernel {handle} is not registered (its layer was "
                        "deleted, or the handle is not one wino-tvm gave): convert the model "
                        "again") from None
    y = _output(x, out_channels)
    forward(library, x, y, workspace, torch.cuda.current_stream(x.device).cuda_stream,
            scratch_for(library, x.device), bias, residual)
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
