"""U in fragment order (reconstructor.fragment_order): the weight kernel's stores and the forward
kernel's loads meet, whatever element each lane holds (WMMA leaves that unspecified)."""

from __future__ import annotations

import random

import pytest
import regex

from wino_tvm.kernels.pkf.reconstructor.cexpr import compile_int_expr
from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.fragment_order import (
    KERNEL,
    fragment_order_u,
    orders_u,
)
from wino_tvm.kernels.pkf.reconstructor.launch import Launch
from wino_tvm.kernels.pkf.reconstructor.source import Kernel, Param

# (m, n, k) of the WMMA shapes: B is k x n, n output channels (U's rows) by k input channels.
SHAPES = [(16, 16, 16), (32, 8, 16), (8, 32, 16)]
ROWS, LDM = 64, 48  # taps x K rows of U, C columns (3 column fragments of k = 16)


def _forward(m: int, n: int, k: int, ctype: str = "signed char") -> Kernel:
    """A BGEMM-like kernel loading every B fragment of U (row block r, column block c)."""
    body = (f"  nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, {m}, {n}, {k}, {ctype}, "
            "nvcuda::wmma::col_major> U_wmma_matrix_b_ptr[1];\n"
            f"  for (int r = 0; r < {ROWS // n}; ++r) {{\n"
            f"    for (int c = 0; c < {LDM // k}; ++c) {{\n"
            "      nvcuda::wmma::load_matrix_sync(U_wmma_matrix_b_ptr[0], "
            f"(&(U_ptr[((r * {n * LDM}) + (c * {k}))])), {LDM});\n"
            "    }\n  }\n")
    pointer = f"{ctype}* __restrict__"
    return Kernel("bgemm", 128, (Param(pointer, "U_ptr"),), body)


def _ktrans() -> Kernel:
    return Kernel("ktrans", 128, (Param("signed char* __restrict__", "U_ptr"),
                                  Param("signed char* __restrict__", "w_ptr")),
                  "  U_ptr[((int)threadIdx.x)] = w_ptr[((int)threadIdx.x)];\n")


_LAUNCH = Launch("bgemm", ("U",), (1, 1, 1), (32, 4, 1), 0)
_KT_LAUNCH = Launch("ktrans", ("U", "w"), (1, 1, 1), (128, 1, 1), 0)


@pytest.mark.parametrize(("m", "n", "k"), SHAPES)
def test_stores_and_loads_meet_for_any_lane_layout(m, n, k):
    (forward, _), weight = fragment_order_u((_forward(m, n, k), _LAUNCH), [(_ktrans(), _KT_LAUNCH)],
                                            ROWS)
    rewrite = weight[-1][0]
    assert rewrite.name == KERNEL and weight[0][1].params == ("U_kc", "w")
    assert "U_kc_ptr[" in weight[0][0].body and "U_ptr" not in weight[0][0].body
    per_lane = k * n // 32
    # Any assignment of the fragment's k x n elements to (lane, byte): a permutation.
    layout = list(range(k * n))
    random.Random(n).shuffle(layout)
    u_kc = [random.Random(1).randrange(256) for _ in range(ROWS * LDM)]

    def element(row: int, col: int, lane: int, byte: int) -> int:
        """What load_matrix_sync(col-major, LDM) at (row, col) leaves in lane's byte."""
        kk, nn = divmod(layout[lane * per_lane + byte], n)
        return u_kc[(row + nn) * LDM + col + kk]

    def expr(pattern: str, body: str) -> str:
        return regex.search(pattern, body)[1]

    row = compile_int_expr(expr(r"int row = (.*);", rewrite.body))
    col = compile_int_expr(expr(r"int col = (.*);", rewrite.body))
    store = compile_int_expr(expr(r"\*\(\w+\*\)\(U_ptr \+ (.*)\) = ", rewrite.body))
    count = int(expr(r"if \(fragment < (\d+)\)", rewrite.body))
    first = compile_int_expr(expr(r"int fragment = (.*);", rewrite.body))
    assert [first({"blockIdx.x": b, "threadIdx.y": y}) for b in range(2) for y in range(4)] == (
        list(range(8)))
    assert count == ROWS // n * LDM // k
    assert weight[-1][1].grid[0] * 4 >= count
    ordered = [None] * (ROWS * LDM)
    for fragment in range(count):
        for lane in range(32):
            env = {"fragment": fragment, "threadIdx.x": lane}
            env |= {"row": row(env), "col": col(env)}
            base = store(env)
            for byte in range(per_lane):
                assert ordered[base + byte] is None  # no two lanes write one byte
                ordered[base + byte] = element(env["row"], env["col"], lane, byte)
    assert None not in ordered

    word = regex.search(r"\*\((\w+)\*\)U_wmma_matrix_b_ptr\[0\]\.x = \*\(const (\w+)\*\)"
                        r"\(U_ptr \+ (.*)\);", forward.body)
    assert word[1] == word[2] == {4: "int", 8: "int2", 16: "int4"}[per_lane]
    load = compile_int_expr(word[3])
    for r in range(ROWS // n):
        for c in range(LDM // k):
            for lane in range(32):
                base = load({"r": r, "c": c, "threadIdx.x": lane})
                assert base % per_lane == 0  # one aligned word per lane
                got = ordered[base:base + per_lane]
                assert got == [element(r * n, c * k, lane, b) for b in range(per_lane)]


def test_only_8_bit_fragments_from_u():
    assert orders_u(_forward(16, 16, 16))
    assert not orders_u(_forward(16, 16, 16, ctype="half"))  # fp16 lanes repeat elements
    staged = _forward(16, 16, 16)
    staged = Kernel(staged.name, 128, staged.params,
                    staged.body.replace("U_ptr[", "U_shared_ptr["))
    assert not orders_u(staged)


def test_needs_the_lane_in_thread_x():
    wide = Launch("bgemm", ("U",), (1, 1, 1), (64, 2, 1), 0)
    with pytest.raises(ReconstructError, match="threadIdx.x must be the lane"):
        fragment_order_u((_forward(16, 16, 16), wide), [(_ktrans(), _KT_LAUNCH)], ROWS)


def test_rows_must_tile_into_fragments():
    with pytest.raises(ReconstructError, match="do not tile"):
        fragment_order_u((_forward(16, 16, 16), _LAUNCH), [(_ktrans(), _KT_LAUNCH)], ROWS + 8)
