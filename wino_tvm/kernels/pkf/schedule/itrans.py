"""ITrans on CUDA with the BGEMM's block shape, so the reconstructor can fuse the two.

Blocks over (ntiles/TB_M, C/TB_K) and alpha warps, alpha_w -> threadIdx.y: warp w computes tap
column V[:, w] of its block's TB_M x TB_K (tile, channel) pairs into a shared slice laid out
exactly like the BGEMM's V slice, then copies that slice to global V with 16-byte stores.
"""

from __future__ import annotations

from tvm import s_tir

from wino_tvm.device import WARP_SIZE
from wino_tvm.workload import BYTES, Conv2dWorkload

from ..config import PkfConfig
from .bgemm import SMEM_SCOPE, bind_warp_copy
from .common import inline_const_matrices

# TVM 0.27 prints the zero of an 8- or 16-lane int8 vector select as make_int2 / make_int4 with
# 8 / 16 char arguments, which nvcc rejects; 4 lanes print as one `int`. So int8 tiles are
# loaded 4 channels (32 bits) at a time.
INT8_LOAD_BYTES = 4


def schedule_itrans(sch: s_tir.Schedule, wl: Conv2dWorkload, cfg: PkfConfig) -> None:
    """Schedule the PrimFunc 'itrans' of sch in place."""
    sch.work_on("itrans")
    inline_const_matrices(sch)
    ve = BYTES[wl.dtype]
    v_block = sch.get_sblock("V")
    store = sch.cache_write(v_block, 0, SMEM_SCOPE)

    h, w, t, c = sch.get_loops(v_block)
    t_o, t_i = sch.split(t, [None, cfg.tb_m])
    c_o, c_i = sch.split(c, [None, cfg.tb_k])
    # Each thread owns one tile and a group of channels, so its input tile is read with vector
    # loads (channels are contiguous in NHWC): `vec` bytes for fp16, 4 bytes for int8.
    load_bytes = cfg.vec if wl.dtype == "fp16" else min(cfg.vec, INT8_LOAD_BYTES)
    per_thread = load_bytes // ve
    vectorized = per_thread > 1
    while (cfg.tb_m * cfg.tb_k // per_thread) % WARP_SIZE:  # every lane gets whole groups
        per_thread //= 2
    c_g, c_v = sch.split(c_i, [None, per_thread])
    sch.reorder(t_o, c_o, w, t_i, c_g, h, c_v)
    sch.bind(t_o, "blockIdx.x")
    sch.bind(c_o, "blockIdx.y")
    sch.bind(w, "threadIdx.y")
    _, lane = sch.split(sch.fuse(t_i, c_g), [None, WARP_SIZE])
    sch.bind(lane, "threadIdx.x")
    sch.unroll(h)
    # Stores stay scalar: a vector store would retype the shared slice (uint4), which the
    # reconstructor matches by element, and int8 has no float32x16 CUDA type for the cast.
    sch.unroll(c_v)
    lane_depth = len(sch.get_loops(v_block)) - 2  # loops down to and including the lane
    # The alpha x alpha input tile and the partial sums stay in registers, computed where the
    # thread needs them; the tile's loads are vectorised over the channels.
    for producer in ("V_acc", "dB", "d"):
        block = sch.get_sblock(producer)
        sch.compute_at(block, lane)
        sch.set_scope(block, 0, "local")
        loops = sch.get_loops(block)[lane_depth:]
        for loop in loops:
            sch.unroll(loop)
        if producer == "d" and vectorized:
            sch.vectorize(loops[-1])
    sch.storage_align(v_block, 0, axis=-2, factor=cfg.tb_k + cfg.pad // ve, offset=0)

    sch.reverse_compute_at(store, c_o)
    bind_warp_copy(sch, store, cfg.vec // ve)
