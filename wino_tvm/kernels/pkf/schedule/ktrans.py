"""KTrans on CUDA: one thread per (tap row, out channel, in channel); runs once per weight."""

from __future__ import annotations

from tvm import s_tir

from wino_tvm.workload import Conv2dWorkload

from .common import THREADS, bind_flat, inline_const_matrices


def schedule_ktrans(sch: s_tir.Schedule, wl: Conv2dWorkload) -> None:
    """Schedule the PrimFunc 'ktrans' of sch in place (fp16: 1 kernel; int8: scales, then U)."""
    sch.work_on("ktrans")
    inline_const_matrices(sch)
    # G g G^T is 9 multiply-adds an entry: recomputing it beats a float32 round trip.
    sch.compute_inline(sch.get_sblock("U_f32"))
    u_block = sch.get_sblock("U")
    h, w, k, c = sch.get_loops(u_block)
    sch.reorder(h, k, c, w)  # c is contiguous in U: adjacent threads write adjacent channels
    bind_flat(sch, [h, k, c], THREADS)
    sch.unroll(w)
    if wl.dtype == "int8":
        scale = sch.get_sblock("U_scale")
        bind_flat(sch, sch.get_loops(scale), THREADS)
        absmax = sch.get_sblock("U_absmax")
        sch.compute_at(absmax, sch.get_loops(scale)[-1])
        sch.set_scope(absmax, 0, "local")
