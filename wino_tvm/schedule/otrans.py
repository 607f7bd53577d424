"""OTrans on CUDA: one thread per (tile, out channel) holds the m x m output tile in registers."""

from __future__ import annotations

from tvm import s_tir

from ..workload import Conv2dWorkload
from .common import THREADS, bind_flat, inline_const_matrices


def schedule_otrans(sch: s_tir.Schedule, wl: Conv2dWorkload) -> None:
    """Schedule the PrimFunc 'otrans' of sch in place."""
    sch.work_on("otrans")
    inline_const_matrices(sch)
    y = sch.get_sblock("y")
    b, i, j, k = sch.get_loops(y)
    ti, mi = sch.split(i, [None, wl.m])
    tj, mj = sch.split(j, [None, wl.m])
    sch.reorder(b, ti, tj, k, mi, mj)  # k fastest across threads: M reads and y writes coalesce
    thread = bind_flat(sch, [b, ti, tj, k], THREADS)
    sch.unroll(mi)
    sch.unroll(mj)
    depth = len(sch.get_loops(y)) - 2
    for producer in ("Y_tile", "MA"):
        block = sch.get_sblock(producer)
        sch.compute_at(block, thread)
        sch.set_scope(block, 0, "local")
        for loop in sch.get_loops(block)[depth:]:
            sch.unroll(loop)
