"""A constant matrix's product with a vector as a short straight-line program: sums that several
rows share (the same two inputs in the same ratio) computed once, by greedy common-subexpression
elimination, and emitted as CUDA. F(4x4)'s B^T: 16 operations a 1-D transform, 20 without the
shared sums (26 in the loop over B^T's entries this replaced)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations

import numpy as np

Temp = tuple[int, int, Fraction]  # variable u + ratio * variable v


def shared_sums(matrix: np.ndarray) -> tuple[list[Temp], list[dict[int, Fraction]]]:
    """(temps, rows): temp k is variable len(matrix[0]) + k; each row maps its variables (the
    inputs and temps) to their coefficients, and equals the matrix's row."""
    inputs = len(matrix[0])
    rows = [{j: Fraction(float(c)) for j, c in enumerate(row) if c} for row in matrix]
    temps: list[Temp] = []
    while True:
        pairs = Counter((u, v, row[v] / row[u]) for row in rows
                        for u, v in combinations(sorted(row), 2))
        if not pairs or max(pairs.values()) < 2:
            return temps, rows
        u, v, ratio = max(pairs, key=pairs.get)  # the first of the most shared, in row order
        temps.append((u, v, ratio))
        for row in rows:
            if u in row and v in row and row[v] / row[u] == ratio:
                row[inputs + len(temps) - 1] = row.pop(u)
                del row[v]


def operations(matrix: np.ndarray) -> int:
    """Additions and multiplications the program issues unscaled: a fused multiply-add counts
    one, and a row's products need one more unless a term's coefficient is +-1 (its addend)."""
    temps, rows = shared_sums(matrix)
    return len(temps) + sum(len(row) - 1 + all(abs(c) != 1 for c in row.values())
                            for row in rows)


def _literal(c: Fraction) -> str:
    return f"{float(c)!r}f"


def c_function(matrix: np.ndarray, name: str) -> str:
    """`name(in, out, s)`: out[a] = s[a] * (matrix @ in)[a], for floats; s folds per-row scales
    into the coefficients where the caller's s is constant. Evaluable at compile time."""
    inputs, outputs = len(matrix[0]), len(matrix)
    temps, rows = shared_sums(matrix)

    def var(k: int) -> str:
        return f"in[{k}]" if k < inputs else f"t{k - inputs}"

    body = [f"  const float t{k} = {var(u)} + {_literal(r)} * {var(v)};"
            for k, (u, v, r) in enumerate(temps)]
    for a, row in enumerate(rows):
        terms = " + ".join(f"s[{a}] * {_literal(c)} * {var(k)}" for k, c in row.items())
        body.append(f"  out[{a}] = {terms};")
    return "\n".join([
        f"__host__ __device__ constexpr void {name}(const float (&in)[{inputs}], "
        f"float (&out)[{outputs}],",
        f"{' ' * (len(name) + 36)}const float (&s)[{outputs}]) {{",
        *body, "}"])
