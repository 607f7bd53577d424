"""wino_tvm.nn.Conv2d: a drop-in torch.nn.Conv2d for 3x3, stride 1, padding 1 convolutions that
runs on a wino-tvm kernel where the layer's choice says so, with an optional fused residual add
and ReLU."""

from __future__ import annotations

import torch

from ..errors import WinoError
from ..runtime.choice import Policy
from ..runtime.dispatch import Layer
from .adopt import adopt


def ineligible(conv: torch.nn.Conv2d) -> str | None:
    """Why a torch.nn.Conv2d cannot be a wino-tvm layer (None: it can)."""
    wanted = {"kernel_size": (3, 3), "stride": (1, 1), "padding": (1, 1), "dilation": (1, 1),
              "groups": 1, "padding_mode": "zeros"}
    for name, value in wanted.items():
        if getattr(conv, name) != value:
            return f"{name}={getattr(conv, name)} (wino-tvm runs {name}={value})"
    return None


class Conv2d(torch.nn.Conv2d):
    """torch.nn.Conv2d(in_channels, out_channels, 3, padding=1) whose forward runs on a wino-tvm
    kernel where that is faster than cuDNN (decided per input shape on first use), and as
    PyTorch runs it elsewhere: on the CPU, in float32, when autograd needs gradients.

    relu=True applies a ReLU after the convolution; forward(x, residual) adds residual (of the
    output's shape) before it: y = relu(conv(x) + bias + residual), fused into the kernel."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1, padding=1,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None, *, relu: bool = False,
                 policy: Policy | None = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        why = ineligible(self)
        if why is not None:
            raise WinoError(f"wino_tvm.nn.Conv2d takes 3x3 convolutions with stride 1, padding "
                            f"1, dilation 1, groups 1: {why}; use torch.nn.Conv2d for it")
        self.relu = relu
        self.fused_residual = False  # convert() sets it where forward gets a residual
        self._layer = Layer(policy or Policy())

    @classmethod
    def from_torch(cls, conv: torch.nn.Conv2d, *, relu: bool = False,
                   policy: Policy | None = None) -> Conv2d:
        """A wino-tvm layer with conv's parameters (shared, not copied)."""
        layer = adopt(cls, conv)
        why = ineligible(layer)
        if why is not None:
            raise WinoError(f"{conv} cannot run on wino-tvm: {why}")
        layer.relu = relu
        layer.fused_residual = False
        layer._layer = Layer(policy or Policy())
        return layer

    def epilogue(self) -> tuple[str, ...]:
        """The ops its kernel fuses, as forward calls it from a converted model."""
        return tuple(op for op, on in (("bias", self.bias is not None),
                                       ("residual", self.fused_residual), ("relu", self.relu))
                     if on)

    def forward(self, x: torch.Tensor, residual: torch.Tensor | None = None) -> torch.Tensor:
        return self._layer(x, self.weight, self.bias, residual, self.relu)

    @property
    def choices(self) -> dict:
        """The kernel chosen per (N, H, W, epilogue) this layer has run: runtime.choice.Choice."""
        return dict(self._layer.choices)

    @property
    def workspace_bytes(self) -> int:
        """GPU memory its kernels keep between calls: their transformed weights."""
        return sum(kernel.workspace.numel() for kernel in self._layer.kernels.values()
                   if kernel is not None)

    def extra_repr(self) -> str:
        return super().extra_repr() + (", relu=True" if self.relu else "")
