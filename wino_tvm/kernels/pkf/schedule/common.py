"""Schedule steps shared by the stage schedules."""

from __future__ import annotations

from tvm import s_tir

# Blocks made by topi's const_matrix (see compute.py): inlining turns each entry into a literal.
CONST_MATRICES = ("A", "B", "G", "V_inv_scale", "V_scale")


def inline_const_matrices(sch: s_tir.Schedule) -> None:
    """Inline the transform-matrix blocks of the current function (else TVM makes them buffers)."""
    for block in sch.get_child_blocks(sch.get_sblock("root")):
        if sch.get(block).name_hint in CONST_MATRICES:
            sch.compute_inline(block)

THREADS = 128  # threads per block of the elementwise transforms


def bind_flat(sch: s_tir.Schedule, loops: list, threads: int) -> s_tir.LoopRV:
    """Fuse loops and bind them to (blockIdx.x, threadIdx.x); returns the thread loop."""
    block_loop, thread_loop = sch.split(sch.fuse(*loops), [None, threads])
    sch.bind(block_loop, "blockIdx.x")
    sch.bind(thread_loop, "threadIdx.x")
    return thread_loop
