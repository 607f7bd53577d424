"""wino_tvm.nn.GroupNorm: a drop-in torch.nn.GroupNorm, with the SiLU that follows it in
diffusion decoders optionally fused, on a wino-tvm kernel for channels_last fp16 inputs where
that is faster than PyTorch's."""

from __future__ import annotations

import dataclasses

import torch

from ..bench.timing import errors
from ..runtime import norm
from ..runtime.choice import Policy
from ..runtime.select import MIN_SPEEDUP, TIMING, timer
from .adopt import adopt


@dataclasses.dataclass(frozen=True)
class NormChoice:
    """What runs one input shape: the kernel (wino) or PyTorch, why, and the times measured."""

    wino: bool
    reason: str
    wino_us: float | None = None
    torch_us: float | None = None


def decide(x: torch.Tensor, groups: int, weight: torch.Tensor | None,
           bias: torch.Tensor | None, eps: float, silu: bool, policy: Policy) -> NormChoice:
    """The kernel where it is within norm.REL_L2_BAR of float32 on x and faster than PyTorch on
    x (not measured under policy mode 'trust'). float32, as a convolution's decision: float64
    would hold four copies of a 1024² activation at once."""
    if policy.mode == "trust":
        return NormChoice(True, "trusted (not measured)")
    args = (groups, weight, bias, eps, silu)
    out = norm.run(x, *args).float()
    ref = norm.torch_group_norm(x.float(), groups, None if weight is None else weight.float(),
                                None if bias is None else bias.float(), eps, silu)
    rel, _, nonfinite = errors(out, ref)
    if nonfinite or rel > norm.REL_L2_BAR:
        return NormChoice(False, f"PyTorch: the kernel's rel L2 {rel:.1e} ({nonfinite} "
                                 f"non-finite) is over {norm.REL_L2_BAR:.0e}")
    wino_us = timer().time(lambda _: norm.run(x, *args), 1, TIMING)["median_us"]
    torch_us = timer().time(lambda _: norm.torch_group_norm(x, *args), 1, TIMING)["median_us"]
    if torch_us / wino_us >= MIN_SPEEDUP:
        return NormChoice(True, f"measured {wino_us:.1f} us against PyTorch's {torch_us:.1f} us",
                          wino_us, torch_us)
    return NormChoice(False, f"PyTorch: {torch_us:.1f} us, the kernel {wino_us:.1f} us",
                      wino_us, torch_us)


class GroupNorm(torch.nn.GroupNorm):
    """torch.nn.GroupNorm whose forward runs on a wino-tvm kernel where that is faster than
    PyTorch (decided per input shape on first use), and as PyTorch runs it elsewhere: on the
    CPU, outside fp16 channels_last, when autograd needs gradients. silu=True applies SiLU
    after it, fused into the kernel."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, silu: bool = False,
                 policy: Policy | None = None) -> None:
        super().__init__(num_groups, num_channels, eps, affine, device, dtype)
        self.silu = silu
        self._policy = policy or Policy()
        self._choices: dict[tuple, NormChoice] = {}

    @classmethod
    def from_torch(cls, module: torch.nn.GroupNorm, *, silu: bool = False,
                   policy: Policy | None = None) -> GroupNorm:
        """A wino-tvm GroupNorm with module's parameters (shared, not copied)."""
        layer = adopt(cls, module)
        layer.silu = silu
        layer._policy = policy or Policy()
        layer._choices = {}
        return layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        args = (self.num_groups, self.weight, self.bias, self.eps, self.silu)
        if norm.unsupported(x, self.num_groups, self.weight) is not None:
            return norm.torch_group_norm(x, *args)
        key = tuple(x.shape)
        if key not in self._choices and not torch.compiler.is_compiling():
            # Deciding measures, which a traced graph cannot hold: an eager call decides.
            self._choices[key] = decide(x, *args, self._policy)
        choice = self._choices.get(key)
        if choice is None or not choice.wino:
            return norm.torch_group_norm(x, *args)
        if torch.compiler.is_compiling():
            return torch.ops.wino_tvm.group_norm(x, *args)
        return norm.run(x, *args)

    @property
    def choices(self) -> dict[tuple, NormChoice]:
        """What ran per input shape (N, C, H, W) this layer has seen."""
        return dict(self._choices)

    def extra_repr(self) -> str:
        return super().extra_repr() + (", silu=True" if self.silu else "")
