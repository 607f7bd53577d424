"""CUDA schedules of the four Winograd stages (one module per stage)."""

from __future__ import annotations

import tvm
from tvm import s_tir

from wino_tvm.workload import Conv2dWorkload

from ..compute import winograd_stages
from ..config import PkfConfig
from .bgemm import schedule_bgemm
from .itrans import schedule_itrans
from .ktrans import schedule_ktrans
from .otrans import schedule_otrans


def scheduled_module(wl: Conv2dWorkload, cfg: PkfConfig) -> tvm.IRModule:
    """The four stage PrimFuncs of wl, scheduled for CUDA Tensor Cores with cfg."""
    cfg.validate(wl)
    # fp16 ITrans arithmetic pays only once the reconstructor specialises ITrans per warp, which
    # it never does for fusion none: there the fp16 selects made TVM's generic code 5% slower at
    # 224^2 (experiments: itrans_fp16_none_ab).
    stages = winograd_stages(wl, cfg.tb_m, half_itrans=cfg.fusion != "none")
    sch = s_tir.Schedule(tvm.IRModule(stages.prim_funcs()))
    schedule_itrans(sch, wl, cfg)
    schedule_ktrans(sch, wl)
    schedule_bgemm(sch, wl, cfg)
    schedule_otrans(sch, wl, cfg)
    return sch.mod
