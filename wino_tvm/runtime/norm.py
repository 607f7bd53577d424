"""The PyTorch operator wino_tvm::group_norm: GroupNorm, optionally followed by SiLU, on
channels_last fp16 tensors, by templates/group_norm.cu (PyTorch; GPU side)."""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

import torch
import torch.nn.functional as F

from ..errors import WinoError
from . import cache as kernel_cache
from .dispatch import device_of
from .ops import current_stream

SOURCE = Path(__file__).resolve().parents[2] / "templates" / "group_norm.cu"
# The kernel's limits (templates/group_norm.cu): 16-byte channel vectors, C <= 4096, N a grid
# dimension.
CHANNEL_VECTOR = 8
MAX_CHANNELS = 4096
MAX_IMAGES = 65535
# fp16 output: each element rounded to 2^-11 relative, about 2.8e-4 in rel L2; the bar leaves
# room for the fp32 moments and __expf in SiLU.
REL_L2_BAR = 1e-3


class GroupNormLibrary:
    """ctypes view of the built group_norm.cu; pointers and the stream are ints."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._lib = ctypes.CDLL(str(path))
        except OSError as exc:
            raise WinoError(f"cannot load {path}: {exc}") from exc
        void_p, c_int = ctypes.c_void_p, ctypes.c_int
        self._lib.wino_gn_workspace_bytes.restype = ctypes.c_size_t
        self._lib.wino_gn_workspace_bytes.argtypes = [c_int] * 4
        self._lib.wino_gn_forward.restype = c_int
        self._lib.wino_gn_forward.argtypes = [void_p] * 5 + [c_int] * 4 + [ctypes.c_float,
                                                                          c_int, void_p]
        self._lib.wino_gn_error_string.restype = ctypes.c_char_p
        self._lib.wino_gn_error_string.argtypes = [c_int]

    def workspace_bytes(self, n: int, hw: int, c: int, groups: int) -> int:
        return int(self._lib.wino_gn_workspace_bytes(n, hw, c, groups))

    def forward(self, x: int, gamma: int, beta: int, y: int, workspace: int,
                shape: tuple[int, int, int, int], eps: float, silu: bool, stream: int) -> None:
        status = self._lib.wino_gn_forward(x, gamma, beta, y, workspace, *shape, eps, int(silu),
                                           stream)
        if status:
            text = self._lib.wino_gn_error_string(status).decode()
            raise WinoError(f"wino_gn_forward in {self.path} failed: CUDA error {status} "
                            f"({text})")


@cache
def library(arch: str) -> GroupNormLibrary:
    """group_norm.cu built for arch (once per user cache)."""
    return GroupNormLibrary(kernel_cache.build_source("group_norm", SOURCE.read_text(), arch))


def unsupported(x: torch.Tensor, groups: int, weight: torch.Tensor | None) -> str | None:
    """Why this GroupNorm call must run as PyTorch runs it (None: the kernel may run it)."""
    if not x.is_cuda:
        return "x is not on a CUDA device"
    if x.dtype != torch.float16:
        return f"x is {x.dtype}, not float16"
    if x.dim() != 4:
        return f"x has {x.dim()} dimensions, not 4 (N, C, H, W)"
    if torch.is_grad_enabled() and (x.requires_grad or (weight is not None
                                                        and weight.requires_grad)):
        return "autograd needs gradients (the kernel is forward-only)"
    c = x.shape[1]
    if c % groups:
        return f"C={c} is not a multiple of groups={groups}"
    if c % CHANNEL_VECTOR or c > MAX_CHANNELS:
        return f"C={c}: the kernel takes multiples of {CHANNEL_VECTOR} up to {MAX_CHANNELS}"
    if x.shape[0] > MAX_IMAGES:
        return f"N={x.shape[0]}: the kernel takes up to {MAX_IMAGES} images"
    if not x.is_contiguous(memory_format=torch.channels_last):
        return "x is not channels_last contiguous (PyTorch's own layout suits it better)"
    if x.data_ptr() % 16:
        return "x is not 16-byte aligned"
    return None


def torch_group_norm(x: torch.Tensor, groups: int, weight: torch.Tensor | None,
                     bias: torch.Tensor | None, eps: float, silu: bool) -> torch.Tensor:
    """The same op as PyTorch runs it."""
    y = F.group_norm(x, groups, weight, bias, eps)
    return F.silu(y) if silu else y


@cache
def _affine_default(c: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    return (torch.ones(c, dtype=torch.float16, device=device),
            torch.zeros(c, dtype=torch.float16, device=device))


def run(x: torch.Tensor, groups: int, weight: torch.Tensor | None, bias: torch.Tensor | None,
        eps: float, silu: bool) -> torch.Tensor:
    """What wino_tvm::group_norm computes, called directly where no graph is traced."""
    n, c, h, w = x.shape
    ones, zeros = _affine_default(c, x.device)
    gamma = ones if weight is None else weight.to(torch.float16)
    beta = zeros if bias is None else bias.to(torch.float16)
    lib = library(device_of(x.device.index or 0)[1])
    shape = (n, h * w, c, groups)
    workspace = torch.empty(lib.workspace_bytes(*shape), dtype=torch.uint8, device=x.device)
    y = torch.empty_like(x, memory_format=torch.channels_last)
    lib.forward(x.data_ptr(), gamma.data_ptr(), beta.data_ptr(), y.data_ptr(),
                workspace.data_ptr(), shape, eps, silu, current_stream(x))
    return y


@torch.library.custom_op("wino_tvm::group_norm", mutates_args=())
def group_norm(x: torch.Tensor, groups: int, weight: torch.Tensor | None,
               bias: torch.Tensor | None, eps: float, silu: bool) -> torch.Tensor:
    """y = silu?(group_norm(x)): x N x C x H x W, channels_last fp16; weight, bias C."""
    why = unsupported(x, groups, weight)
    if why is not None:
        raise WinoError(f"wino_tvm::group_norm: {why}; use torch.nn.functional.group_norm")
    return run(x, groups, weight, bias, eps, silu)


@group_norm.register_fake
def _group_norm_fake(x: torch.Tensor, groups: int, weight: torch.Tensor | None,
                     bias: torch.Tensor | None, eps: float, silu: bool) -> torch.Tensor:
    return torch.empty_like(x, memory_format=torch.channels_last)
