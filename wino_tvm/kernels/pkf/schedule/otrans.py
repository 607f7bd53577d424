"""OTrans on CUDA with the BGEMM's block shape, so the reconstructor can fuse BGEMM+OTrans.

Blocks over (ntiles/TB_M, K/(TB_N/m_rounds)) with alpha warps (the full kernel runs m_rounds of
them in turn per BGEMM block). Warp w stages M[:, w] of the block's TB_M x TB_N/m_rounds (tile,
channel) slice in shared memory (the layout the BGEMM's accumulators would be stored in), then
each thread turns the alpha x alpha taps of one tile and cfg.ot_channels adjacent channels into
their m x m outputs in registers and writes them NHWC.
"""

from __future__ import annotations

from tvm import s_tir

from wino_tvm.device import WARP_SIZE
from wino_tvm.workload import BYTES, Conv2dWorkload

from ..config import PkfConfig
from .bgemm import SMEM_SCOPE, bind_warp_copy
from .common import inline_const_matrices


def schedule_otrans(sch: s_tir.Schedule, wl: Conv2dWorkload, cfg: PkfConfig) -> None:
    """Schedule the PrimFunc 'otrans' of sch in place."""
    sch.work_on("otrans")
    inline_const_matrices(sch)
    y = sch.get_sblock("y")
    b, i, j, k = sch.get_loops(y)
    ti, mi = sch.split(i, [None, wl.m])
    tj, mj = sch.split(j, [None, wl.m])
    sch.reorder(b, ti, tj, k, mi, mj)
    if wl.image_tile_stride(cfg.tb_m) == wl.tiles_per_image:
        # The fused (image, tile row, tile column) loop is M's tile row, so a block's TB_M
        # tiles are the BGEMM block's, straddling two images where one ends mid-block.
        t_o, t_i = sch.split(sch.fuse(b, ti, tj), [None, cfg.tb_m])
    else:  # each image's tiles padded to whole blocks
        r_o, t_i = sch.split(sch.fuse(ti, tj), [None, cfg.tb_m])
        t_o = sch.fuse(b, r_o)
    k_o, k_i = sch.split(k, [None, cfg.m_channels])
    # With ot_channels > 1 a thread's channels are innermost (pair), so that its M loads from
    # shared memory and its y stores vectorise: half the loads and stores, a few more registers
    # (H100 A/B, experiments: ot_pairs_ab; tuned, as it can cost a block per SM).
    pair = []
    if cfg.ot_channels > 1:
        k_i, *pair = sch.split(k_i, [None, cfg.ot_channels])
    sch.reorder(t_o, k_o, t_i, k_i, mi, mj, *pair)
    sch.bind(t_o, "blockIdx.x")
    sch.bind(k_o, "blockIdx.y")
    # Producers, the staged M slice and the thread's taps are placed before the thread split: the
    # split is not exact (TB_M * TB_N / ot_channels threads' work over 32 * alpha threads), and
    # regions derived after it would be over-approximated (24 staged rows instead of 16).
    for producer in ("Y_tile", "MA"):
        block = sch.get_sblock(producer)
        sch.compute_at(block, k_i)
        sch.set_scope(block, 0, "local")
    copy = sch.cache_read(sch.get_sblock("MA"), 0, SMEM_SCOPE)
    sch.compute_at(copy, k_o)
    bind_warp_copy(sch, copy, cfg.vec // BYTES[wl.accum])
    sch.storage_align(copy, 0, axis=-2, factor=cfg.m_row_elems(wl), offset=0)
    # (block, whether its innermost loop, the thread's channels, is vectorised)
    blocks = [(sch.get_sblock("Y_tile"), False), (sch.get_sblock("MA"), False),
              (sch.get_sblock("y"), bool(pair))]
    if pair:  # the thread's taps, copied from shared M with its channels innermost
        taps = sch.cache_read(sch.get_sblock("MA"), 0, "local")
        sch.compute_at(taps, k_i)
        blocks.append((taps, True))
    # Channels fastest across lanes: M reads from shared and y writes both coalesce.
    if cfg.ot_row_step(wl) != 1:
        # A warp reads ot_warp_rows() tile rows at once; rows alpha apart fall on disjoint banks
        # where adjacent ones conflict (config.PkfConfig.ot_row_step). H100: 1.035-1.045x for
        # the fp16-accumulator 32/32 ks2 kernels, 1.02-1.07x for int8 16/16 (experiments:
        # ot_rows_ab).
        _, row, warp = sch.split(t_i, [None, cfg.ot_warp_rows(), wl.alpha])
        sch.reorder(warp, row)
        lane = sch.fuse(row, k_i)
    else:
        _, warp, lane = sch.split(sch.fuse(t_i, k_i), [None, wl.alpha, WARP_SIZE])
    sch.bind(warp, "threadIdx.y")
    sch.bind(lane, "threadIdx.x")
    for block, vectorise in blocks:
        *outer, last = sch.get_loops(block)[5:]
        for loop in outer:
            sch.unroll(loop)
        if vectorise:
            sch.vectorize(last)
        else:
            sch.unroll(last)
