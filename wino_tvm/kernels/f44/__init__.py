"""The f44 family: two-dimensional Winograd F(4x4, 3x3) without fusion, its batched GEMM on
wgmma; 4x fewer multiplies than direct convolution at an fp16 error (2.5e-3) beyond the default
accuracy bar, so it runs only under an explicit bound.

A template (templates/f44_nonfused.cu), not a TVM prototype: TVM 0.27's s_tir has no wgmma
intrinsic, and bulk copies of operands the transforms stored in shared memory's order have none
either.
"""

from __future__ import annotations

from collections.abc import Callable

from ...device import DeviceLimits
from ...workload import Conv2dWorkload
from ..base import Family, FamilyConfig, Generated
from .config import PRECISIONS, F44Config, M, tiles
from .generate import f44_kernels


class F44Family(Family):
    name = "f44"
    Config = F44Config
    PRECISIONS = PRECISIONS
    TILE_SIZES = (M,)
    source = ("template templates/f44_nonfused.cu: a batched GEMM on wgmma fed by bulk copies, "
              "which TensorIR cannot express")

    def supports(self, wl: Conv2dWorkload, device: DeviceLimits) -> str | None:
        if wl.m not in self.tile_sizes(wl):
            return (f"f44 takes fp16 with fp32 accumulators at m={M}, not {wl.dtype}/{wl.accum} "
                    f"at m={wl.m}")
        problems = self.default(wl, device).problems(wl, device)
        return "; ".join(problems) if problems else None

    def default(self, wl: Conv2dWorkload, device: DeviceLimits) -> F44Config:
        """Persistent GEMM blocks, the widest K takes (V read once for two), four stages: the
        fastest at 1x128²x512 and 1x256²x512 (experiments: f44_template). Below four blocks of
        128 tiles, blocks of 64 tiles x 256 channels and five stages: fewer pad rows and fuller
        rounds, 1.10x at 8x28²x512 and 1.17x at 1x28²x512 (experiments: f44_block_m)."""
        if tiles(wl) < 4 * 128 and wl.k % 256 == 0:
            return F44Config(block_m=64, block_n=256, persist=True, stages=5)
        return F44Config(block_n=256 if wl.k % 256 == 0 else 128, persist=True, stages=4)

    def rank(self, wl: Conv2dWorkload) -> int:
        """First at C, K >= 512, last elsewhere: it won from 1.14x (8x28²x512) to 1.55x
        (1x256²x512) at C = K = 512 and lost at C = 256 (experiments: f44_template); with
        blocks of 64 tiles it is faster than f23 at 1x28²x512 too (experiments: f44_block_m)."""
        return -1 if min(wl.c, wl.k) >= 512 else 4

    def generate(self, wl: Conv2dWorkload, cfg: FamilyConfig, arch: str,
                 log: Callable[[str], None]) -> Generated:
        log(f"[1/2] f44: fill templates/f44_nonfused.cu for {cfg.name(wl)}")
        return Generated.of_template(f44_kernels(wl, cfg))


FAMILY = F44Family()
