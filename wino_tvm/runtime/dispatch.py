"""Running one 3x3 convolution from PyTorch: on a wino-tvm kernel where the layer's choice
says so, else as PyTorch runs it (cuDNN), never with a wrong result (PyTorch)."""

from __future__ import annotations

import dataclasses
import itertools
from functools import cache

import torch
import torch.nn.functional as F

from ..device import DeviceLimits, gpu_limits
from ..errors import WinoError
from ..workload import Conv2dWorkload
from .choice import Choice, Policy
from .layer import ConvKernel
from .select import decide

# The ops a call fuses, by which of (bias, residual, relu) it has: looked up, not built per call.
_EPILOGUES = {flags: tuple(op for op, on in zip(("bias", "residual", "relu"), flags, strict=True)
                           if on)
              for flags in itertools.product((False, True), repeat=3)}


@cache
def device_of(index: int) -> tuple[DeviceLimits, str]:
    """The GPU's limits and nvcc arch (sm_XY)."""
    limits = gpu_limits()
    if limits is None:
        raise WinoError("no CUDA GPU visible to PyTorch: wino-tvm kernels run on NVIDIA GPUs")
    props = torch.cuda.get_device_properties(index)
    return limits, f"sm_{props.major}{props.minor}"


def torch_conv(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
               residual: torch.Tensor | None, relu: bool) -> torch.Tensor:
    """The same layer as separate PyTorch ops (autograd-capable)."""
    y = F.conv2d(x, weight, bias, padding=1)
    if residual is not None:
        y = y + residual
    return F.relu(y) if relu else y


def unsupported_call(x: torch.Tensor, weight: torch.Tensor, residual: torch.Tensor | None
                     ) -> str | None:
    """Why this call must run as PyTorch runs it (None: a wino-tvm kernel may run it)."""
    if not x.is_cuda:
        return "x is not on a CUDA device"
    if x.dtype != torch.float16 or weight.dtype != torch.float16:
        return f"x and the weight are {x.dtype} and {weight.dtype}, not float16"
    if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad or (
            residual is not None and residual.requires_grad)):
        return "autograd needs gradients (the kernels are forward-only)"
    if x.dim() != 4:
        return f"x has {x.dim()} dimensions, not 4 (N, C, H, W)"
    out = (x.shape[0], weight.shape[0], x.shape[2], x.shape[3])
    if residual is not None and tuple(residual.shape) != out:
        return f"the residual's shape {tuple(residual.shape)} broadcasts to the output's {out}"
    if residual is not None and residual.dtype != torch.float16:
        return f"the residual is {residual.dtype}, not float16"
    return None


@dataclasses.dataclass
class Layer:
    """One layer's kernels by input shape, and the weight version they were transformed from."""

    policy: Policy = dataclasses.field(default_factory=Policy)
    kernels: dict = dataclasses.field(default_factory=dict)
    choices: dict = dataclasses.field(default_factory=dict)
    weight_version: tuple | None = None

    def __deepcopy__(self, memo: dict) -> Layer:
        """A copy decides and builds afresh (from the user cache): kernels hold workspaces
        filled from the original's weights."""
        return Layer(self.policy)

    def kernel(self, x: torch.Tensor, weight: torch.Tensor, epilogue_ops: tuple[str, ...]
               ) -> ConvKernel | None:
        n, c, h, w = x.shape
        key = (n, h, w, epilogue_ops)
        # Inference tensors keep no version counter (made under torch.inference_mode, they
        # change in place only there): their address stands for them.
        version = (weight.data_ptr(), None if weight.is_inference() else weight._version)
        if version != self.weight_version:
            for known in self.kernels.values():
                if known is not None:
                    known.load_weight(weight)
            self.weight_version = version
        if key not in self.kernels:
            limits, arch = device_of(x.device.index or 0)
            base = Conv2dWorkload(n, h, w, c, weight.shape[0], dtype="fp16",
                                  epilogue=epilogue_ops)
            choice: Choice = decide(base, limits, arch, self.policy)
            self.choices[key] = choice
            self.kernels[key] = (None if choice.config is None else
                                 ConvKernel(choice.wl, choice.config, arch, weight))
        return self.kernels[key]

    def __call__(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                 residual: torch.Tensor | None, relu: bool) -> torch.Tensor:
        if unsupported_call(x, weight, residual) is not None:
            return torch_conv(x, weight, bias, residual, relu)
        ops = _EPILOGUES[bias is not None, residual is not None, relu]
        if torch.compiler.is_compiling():
            # Deciding measures and builds, which a traced graph cannot hold: an eager call
            # before compiling decides, and the graph takes its kernel.
            kernel = self.kernels.get((x.shape[0], x.shape[2], x.shape[3], ops))
        else:
            kernel = self.kernel(x, weight, ops)
        if kernel is None:
            return torch_conv(x, weight, bias, residual, relu)
        channels_last = torch.channels_last
        if not x.is_contiguous(memory_format=channels_last):
            x = x.contiguous(memory_format=channels_last)
        if residual is not None and not residual.is_contiguous(memory_format=channels_last):
            residual = residual.contiguous(memory_format=channels_last)
        if bias is not None and bias.dtype != torch.float16:
            bias = bias.to(torch.float16)
        return kernel(x, bias, residual)
