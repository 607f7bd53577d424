"""The straight-line programs of wino_tvm.kernels.f44.shared_sums: each equals its matrix exactly
(evaluated with Fractions), F(4x4)'s B^T takes 16 operations, and the CUDA evaluates each row."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from wino_tvm.kernels.f44.shared_sums import c_function, operations, shared_sums
from wino_tvm.math.winograd import transform_matrices


def evaluate(matrix: np.ndarray, x: list[Fraction]) -> list[Fraction]:
    temps, rows = shared_sums(matrix)
    values = list(x)
    for u, v, ratio in temps:
        values.append(values[u] + ratio * values[v])
    return [sum((c * values[k] for k, c in row.items()), Fraction(0)) for row in rows]


MATRICES = {
    "f44_bt": transform_matrices(4)[1].T,
    "f44_at": transform_matrices(4)[0].T,
    "f23_bt": transform_matrices(2)[1].T,
    "identity": np.eye(5),
    "random_ints": np.random.default_rng(5).integers(-3, 4, (7, 6)).astype(float),
}


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_program_is_its_matrix_exactly(name: str) -> None:
    matrix = MATRICES[name]
    for j in range(len(matrix[0])):  # the unit vectors: every column
        unit = [Fraction(int(k == j)) for k in range(len(matrix[0]))]
        assert evaluate(matrix, unit) == [Fraction(float(c)) for c in matrix[:, j]], (name, j)


def test_bt_shares_two_sums_and_takes_16_operations() -> None:
    bt = MATRICES["f44_bt"]
    temps, _ = shared_sums(bt)
    assert temps == [(1, 3, Fraction(-1)), (2, 4, Fraction(-1))]  # d1 - d3, d2 - d4
    assert operations(bt) == 16
    assert operations(np.eye(4)) == 0


def test_c_function_writes_every_row_scaled() -> None:
    source = c_function(MATRICES["f44_bt"], "bt_apply")
    assert source.startswith("__host__ __device__ constexpr void bt_apply(const float (&in)[6]")
    for a in range(6):
        row = re.search(rf"out\[{a}\] = (.*);", source).group(1)
        assert all(term.startswith(f"s[{a}] * ") for term in row.split(" + ")), row
    assert "const float t0 = in[1] + -1.0f * in[3];" in source
