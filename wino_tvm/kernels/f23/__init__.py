"""The f23 family: one-dimensional Winograd F(2, 3) along w, fully fused, on wgmma.

A template (templates/f23_wgmma.cu), not a TVM prototype: wgmma with V in registers, bulk
copies of U on mbarriers and thread-block clusters have no TensorIR intrinsics.
"""

from __future__ import annotations

from collections.abc import Callable

from ...device import DeviceLimits
from ...workload import Conv2dWorkload
from ..base import Family, FamilyConfig, Generated
from .config import PRECISIONS, F23Config, M
from .generate import f23_kernels


class F23Family(Family):
    name = "f23"
    Config = F23Config
    PRECISIONS = PRECISIONS
    TILE_SIZES = (M,)
    source = ("template templates/f23_wgmma.cu: wgmma with V in registers, bulk copies of U "
              "and clusters, none of which TensorIR can express")

    def supports(self, wl: Conv2dWorkload, device: DeviceLimits) -> str | None:
        if wl.m not in self.tile_sizes(wl):
            return (f"f23 takes fp16 and int8 with fp32 accumulators at m={M}, not "
                    f"{wl.dtype}/{wl.accum} at m={wl.m}")
        from .defaults import default_strip

        problems = F23Config(strip=default_strip(wl)).problems(wl, device)
        return "; ".join(problems) if problems else None

    def default(self, wl: Conv2dWorkload, device: DeviceLimits) -> F23Config:
        from .defaults import default_config

        return default_config(wl, device)

    def rank(self, wl: Conv2dWorkload) -> int:
        """First from C = 128 (1-D F(2, 3) won there on the H100), after lane below."""
        return 0 if wl.c >= 128 else 2

    def generate(self, wl: Conv2dWorkload, cfg: FamilyConfig, arch: str,
                 log: Callable[[str], None]) -> Generated:
        log(f"[1/2] f23: fill templates/f23_wgmma.cu for {cfg.name(wl)}")
        return Generated.of_template(f23_kernels(wl, cfg))


FAMILY = F23Family()
