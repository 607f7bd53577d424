"""Sync-free BGEMM on Tensor Cores (paper's Algorithm 3).

Blocks over (ntiles/TB_M, K/TB_N); alpha_w -> threadIdx.y (one warp per column tap);
C in steps of TB_K; alpha_h a loop inside the step. Each warp stages only its own tap's V and U
slices in shared memory, so no warp reads what another warp wrote.
"""

from __future__ import annotations

from tvm import s_tir

from wino_tvm.device import WARP_SIZE
from wino_tvm.workload import BYTES, Conv2dWorkload

from ..compute import StageDtypes
from ..config import PkfConfig
from .intrin import wmma_intrins

SMEM_SCOPE = "shared.dyn"


def schedule_bgemm(sch: s_tir.Schedule, wl: Conv2dWorkload, cfg: PkfConfig) -> None:
    """Schedule the PrimFunc 'bgemm' of sch in place."""
    sch.work_on("bgemm")
    fm, fn, fk = cfg.frag
    ve = BYTES[wl.dtype]
    block = sch.get_sblock("M")
    h, w, n, k, c = sch.get_loops(block)
    n_o, n_f, n_i = sch.split(n, [None, cfg.tb_m // fm, fm])
    k_o, k_f, k_i = sch.split(k, [None, cfg.tb_n // fn, fn])
    c_o, c_f, c_i = sch.split(c, [None, cfg.tb_k // fk, fk])
    sch.reorder(n_o, k_o, w, c_o, h, n_f, k_f, c_f, n_i, k_i, c_i)
    sch.bind(n_o, "blockIdx.x")
    sch.bind(k_o, "blockIdx.y")
    sch.bind(w, "threadIdx.y")
    mma = sch.blockize(n_i)

    acc = sch.cache_write(mma, 0, "wmma.accumulator")
    sch.reverse_compute_at(acc, w)

    row_elems = cfg.tb_k + cfg.pad // ve
    # U (the weights) is the same for every tile block: without staging, each warp loads its
    # B fragments straight from global memory (L2-resident), and shared memory holds only V.
    for operand in (0, 1) if not cfg.u_l2 else (0,):
        copy = sch.cache_read(mma, operand, SMEM_SCOPE)
        sch.compute_at(copy, c_o)
        bind_warp_copy(sch, copy, cfg.vec // ve)
        sch.storage_align(copy, 0, axis=-2, factor=row_elems, offset=0)

    frag_a = sch.cache_read(mma, 0, "wmma.matrix_a")
    frag_b = sch.cache_read(mma, 1, "wmma.matrix_b")
    sch.compute_at(frag_a, c_f)
    sch.compute_at(frag_b, c_f)
    init = sch.decompose_reduction(mma, c_o)

    dtypes = StageDtypes.of(wl)
    intrins = wmma_intrins(
        cfg.frag, dtypes.storage, dtypes.accum, SMEM_SCOPE, "global",
        SMEM_SCOPE if not cfg.u_l2 else "global",
    )
    sch.tensorize(sch.get_loops(frag_a)[-2], intrins.load_a)
    sch.tensorize(sch.get_loops(frag_b)[-2], intrins.load_b)
    sch.tensorize(sch.get_loops(sch.get_child_blocks(init)[0])[-2], intrins.fill)
    sch.tensorize(sch.get_loops(sch.get_child_blocks(mma)[0])[-3], intrins.sync)

    _, st_n, st_k = sch.get_loops(acc)[-3:]
    st_n_o, st_n_i = sch.split(st_n, [None, fm])
    st_k_o, st_k_i = sch.split(st_k, [None, fn])
    sch.reorder(st_n_o, st_k_o, st_n_i, st_k_i)
    sch.tensorize(st_n_i, intrins.store)


def bind_warp_copy(sch: s_tir.Schedule, copy: s_tir.SBlockRV, vec_elems: int) -> None:
    """Map a [h, w, row, col] slice copy so warp w copies only tap column w (16-byte lanes)."""
    ax_h, ax_w, ax_row, ax_col = sch.get_loops(copy)[-4:]
    # The staged region covers every tap column; binding that axis to the warp index makes
    # each warp copy only the slice it consumes (the sync-free property).
    sch.reorder(ax_w, ax_h, ax_row, ax_col)
    sch.bind(ax_w, "threadIdx.y")
    _, lane, vec = sch.split(sch.fuse(ax_h, ax_row, ax_col), [None, WARP_SIZE, vec_elems])
    sch.bind(lane, "threadIdx.x")
    sch.vectorize(vec)
