"""The lane family: the fully fused F(2x2, 3x3) kernel in the MMA's lane layout.

A template (templates/lane_layout.cu), not a TVM prototype: TensorIR binds an MMA operand to
a buffer it loads from, and the point of this kernel is that each lane computes its own A
fragment (the input transform) in registers and applies OTrans to its own accumulators, so V
and M never touch shared memory; wgmma and TMA have no TensorIR intrinsics either.
"""

from __future__ import annotations

from collections.abc import Callable

from ...device import DeviceLimits
from ...workload import Conv2dWorkload
from ..base import Family, FamilyConfig, Generated
from .config import LaneConfig
from .generate import lane_kernels


class LaneFamily(Family):
    name = "lane"
    Config = LaneConfig
    # fp16, and int8 on the fp16 MMA (F(2x2)'s V and U of int8 data are exact in fp16,
    # docs/int8.md)
    PRECISIONS = (("fp16", "fp32"), ("fp16", "fp16"), ("int8", "fp16"))
    source = ("template templates/lane_layout.cu: each lane transforms its own A fragment in "
              "registers, which TensorIR's buffer-bound MMA operands cannot express")

    def supports(self, wl: Conv2dWorkload, device: DeviceLimits) -> str | None:
        if wl.m not in self.tile_sizes(wl):
            return (f"lane takes fp16 (fp32 or fp16 accumulators) and int8 (fp16 accumulators) "
                    f"at m=2, not {wl.dtype}/{wl.accum} at m={wl.m}")
        if wl.c % 16 or wl.k % 16:
            return f"lane needs C and K multiples of 16, not C={wl.c}, K={wl.k}"
        if any(not cfg.problems(wl, device) for cfg in self.space(wl, {})):
            return None
        smallest = LaneConfig(tb_n=16, tb_k=16).smem_bytes(wl)
        return (f"lane: no config fits {device.name}: U of all C={wl.c} channels for 16 output "
                f"channels and one patch take {smallest} B of shared memory "
                f"({device.smem_per_block} B per block)")

    def default(self, wl: Conv2dWorkload, device: DeviceLimits) -> LaneConfig:
        from .defaults import default_config

        return default_config(wl, device)

    def rank(self, wl: Conv2dWorkload) -> int:
        """First below C = 128, after f23 from there."""
        return 1

    def generate(self, wl: Conv2dWorkload, cfg: FamilyConfig, arch: str,
                 log: Callable[[str], None]) -> Generated:
        log(f"[1/2] lane: fill templates/lane_layout.cu for {cfg.name(wl)}")
        return Generated.of_template(lane_kernels(wl, cfg))


FAMILY = LaneFamily()
