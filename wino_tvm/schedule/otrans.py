"""OTrans on CUDA with the BGEMM's block shape, so the reconstructor can fuse BGEMM+OTrans.

Blocks over (ntiles/TB_M, K/TB_N) with alpha warps. Warp w stages M[:, w] of the block's
TB_M x TB_N (tile, channel) slice in shared memory (the layout the BGEMM's accumulators would be
stored in), then each thread turns the alpha x alpha taps of one tile and CHANNELS_PER_THREAD
adjacent channels into their m x m outputs in registers and writes them NHWC.
"""

from __future__ import annotations

from tvm import s_tir

from ..config import ACCUMULATOR_BYTES, WARP_SIZE, KernelConfig
from ..workload import Conv2dWorkload
from .bgemm import SMEM_SCOPE, bind_warp_copy
from .common import inline_const_matrices

# Two adjacent channels per thread: M leaves shared memory in 4-byte (fp16) or 8-byte (fp32,
# int32) loads and y is stored two channels at a time, halving OTrans's load/store count; a
# hand-edited A/B on the H100 gave 1.04-1.08x (bench/results/h100/itile_ab/, variant ot2).
CHANNELS_PER_THREAD = 2


def schedule_otrans(sch: s_tir.Schedule, wl: Conv2dWorkload, cfg: KernelConfig) -> None:
    """Schedule the PrimFunc 'otrans' of sch in place."""
    sch.work_on("otrans")
    inline_const_matrices(sch)
    y = sch.get_sblock("y")
    b, i, j, k = sch.get_loops(y)
    ti, mi = sch.split(i, [None, wl.m])
    tj, mj = sch.split(j, [None, wl.m])
    sch.reorder(b, ti, tj, k, mi, mj)
    # Blocks stay inside one image (tiles are padded per image), as in the BGEMM.
    r_o, t_i = sch.split(sch.fuse(ti, tj), [None, cfg.tb_m])
    k_o, k_i, k_v = sch.split(k, [None, cfg.tb_n // CHANNELS_PER_THREAD, CHANNELS_PER_THREAD])
    sch.reorder(b, r_o, k_o, t_i, k_i, mi, mj, k_v)
    t_o = sch.fuse(b, r_o)
    sch.bind(t_o, "blockIdx.x")
    sch.bind(k_o, "blockIdx.y")
    # Producers, the staged M slice and the thread's taps are placed before the thread split: the
    # split is not exact (TB_M * TB_N / 2 pairs over 32 * alpha threads), and regions derived
    # after it would be over-approximated (24 staged rows instead of 16).
    for producer in ("Y_tile", "MA"):
        block = sch.get_sblock(producer)
        sch.compute_at(block, k_i)
        sch.set_scope(block, 0, "local")
    copy = sch.cache_read(sch.get_sblock("MA"), 0, SMEM_SCOPE)
    sch.compute_at(copy, k_o)
    bind_warp_copy(sch, copy, cfg.vec // ACCUMULATOR_BYTES[wl.accum])
    sch.storage_align(copy, 0, axis=-2, factor=cfg.m_row_elems(wl), offset=0)
    # The thread's taps, copied from shared M with the channel pair innermost, vectorised.
    taps = sch.cache_read(sch.get_sblock("MA"), 0, "local")
    sch.compute_at(taps, k_i)
    # Channel pairs fastest across lanes: M reads from shared and y writes both coalesce.
    _, warp, lane = sch.split(sch.fuse(t_i, k_i), [None, wl.alpha, WARP_SIZE])
    sch.bind(warp, "threadIdx.y")
    sch.bind(lane, "threadIdx.x")
    for block in ("Y_tile", "MA"):
        for loop in sch.get_loops(sch.get_sblock(block))[5:]:
            sch.unroll(loop)
    for block in (taps, sch.get_sblock("y")):
        *outer, pair = sch.get_loops(block)[5:]
        for loop in outer:
            sch.unroll(loop)
        sch.vectorize(pair)
