"""The TVM family: TVM writes a prototype (TE compute, TensorIR schedules, BGEMM on WMMA in the
sync-free warp mapping); the reconstructor's passes apply what TVM cannot express (warp
barriers, PKF fusion through shared memory or L2, full fusion, persistent blocks).

Importing it needs no TVM; generating does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...device import DeviceLimits
from ...workload import Conv2dWorkload
from ..base import Family, FamilyConfig, Generated
from .config import PkfConfig
from .generate import pkf_kernels


class PkfFamily(Family):
    name = "pkf"
    Config = PkfConfig
    # (dtype, accumulator) pairs the WMMA kernels take, at m = 2 and 4 (the tuned sizes).
    PRECISIONS = (("fp16", "fp32"), ("fp16", "fp16"), ("int8", "int32"))
    TILE_SIZES = (2, 4)
    source = ("TVM prototype + reconstructor passes: TensorIR writes the four stages and the "
              "WMMA BGEMM; the fusions, warp barriers and persistent blocks are text passes")

    def supports(self, wl: Conv2dWorkload, device: DeviceLimits) -> str | None:
        if wl.m not in self.tile_sizes(wl):
            return (f"pkf takes fp16 (fp32 or fp16 accumulators) and int8 (int32) at m=2 or 4, "
                    f"not {wl.dtype}/{wl.accum} at m={wl.m}")
        problems = self.default(wl, device).problems(wl, device)
        return "; ".join(problems) if problems else None

    def default(self, wl: Conv2dWorkload, device: DeviceLimits) -> PkfConfig:
        """The paper's PKF-Shmem-16, what `python -m wino_tvm.build` always built."""
        return PkfConfig(fusion="shmem")

    def rank(self, wl: Conv2dWorkload) -> int:
        """After the template families, which beat it wherever both ran."""
        return 3

    def generate(self, wl: Conv2dWorkload, cfg: FamilyConfig, arch: str,
                 log: Callable[[str], None], dropped_barriers: Sequence[str] = ()) -> Generated:
        return pkf_kernels(wl, cfg, arch, log, dropped_barriers)


FAMILY = PkfFamily()
