"""ITrans on CUDA with the BGEMM's block shape, so the reconstructor can fuse the two.

Blocks over (ntiles/TB_M, C/TB_K) and alpha warps, alpha_w -> threadIdx.y: warp w computes tap
column V[:, w] of its block's TB_M x TB_K (tile, channel) pairs into a shared slice laid out
exactly like the BGEMM's V slice, then copies that slice to global V with 16-byte stores.
"""

from __future__ import annotations

from tvm import s_tir

from ..config import ELEMENT_BYTES, WARP_SIZE, KernelConfig
from ..workload import Conv2dWorkload
from .bgemm import SMEM_SCOPE, bind_warp_copy
from .common import inline_const_matrices


def schedule_itrans(sch: s_tir.Schedule, wl: Conv2dWorkload, cfg: KernelConfig) -> None:
    """Schedule the PrimFunc 'itrans' of sch in place."""
    sch.work_on("itrans")
    inline_const_matrices(sch)
    ve = ELEMENT_BYTES[wl.dtype]
    v_block = sch.get_sblock("V")
    store = sch.cache_write(v_block, 0, SMEM_SCOPE)

    h, w, t, c = sch.get_loops(v_block)
    t_o, t_i = sch.split(t, [None, cfg.tb_m])
    c_o, c_i = sch.split(c, [None, cfg.tb_k])
    sch.reorder(t_o, c_o, w, t_i, c_i, h)
    sch.bind(t_o, "blockIdx.x")
    sch.bind(c_o, "blockIdx.y")
    sch.bind(w, "threadIdx.y")
    _, lane = sch.split(sch.fuse(t_i, c_i), [None, WARP_SIZE])
    sch.bind(lane, "threadIdx.x")
    sch.unroll(h)
    lane_depth = len(sch.get_loops(v_block)) - 1  # loops down to and including the lane
    # One (tile, channel) per thread: its alpha x alpha input tile and partial sums stay in
    # registers, computed where the thread needs them.
    for producer in ("V_acc", "dB", "d"):
        block = sch.get_sblock(producer)
        sch.compute_at(block, lane)
        sch.set_scope(block, 0, "local")
        for loop in sch.get_loops(block)[lane_depth:]:
            sch.unroll(loop)
    sch.storage_align(v_block, 0, axis=-2, factor=cfg.tb_k + cfg.pad // ve, offset=0)

    sch.reverse_compute_at(store, c_o)
    bind_warp_copy(sch, store, cfg.vec // ve)
