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
    library.forward(x.data_ptr(), y.data_ptr(), workspace.data_ptr(), stream,
                    scratch_ptr=None if scratch is None else scratch.data_ptr(),
                    bias_ptr=None if bias is None else bias.data_ptr(),
                    residual_ptr=None if residual is None else residual.data_ptr(),
                    y_scale_ptr=None if y_scale is None else y_scale.data_ptr())


def current_stream(x: torch.Tensor) -> int:
    """The current CUDA stream of x's device, as the int the libraries take. The raw query (as
    inductor's generated code makes it) costs ~0.1 us a call on the H200's host, where
    torch.cuda.current_stream(), which builds a Stream object, costs ~3.4 us."""
    return torch._C._cuda_getCurrentRawStream(x.get_device())


def _output(x: torch.Tensor, out_channels: int) -> torch.Tensor:
    """N x out_channels x H x W, channels_last, x's dtype and device. new_empty_strided costs
    ~2.9 us a call on the H200's host, torch.empty(memory_format=channels_last) ~7.6 us."""
    n, _, h, w = x.shape
    return x.new_empty_strided((n, out_channels, h, w),
                               (h * w * out_channels, 1, w * out_channels, out_channels))


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
    forward(library, x, y, workspace, current_stream(x), scratch_for(library, x.device), bias,
            residual)
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
