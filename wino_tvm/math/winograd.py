"""Cook-Toom transform matrices and float64 numpy references (TVM-free).

Convention (Lavin & Gray): for a 1D tile d of alpha = m + r - 1 inputs and filter g of r taps,
the correlation y_j = sum_k d[j+k] g[k] is  y = A^T [(G g) * (B^T d)];  in 2D
Y = A^T [(G g G^T) * (B^T d B)] A.  A is (alpha, m), B is (alpha, alpha), G is (alpha, r).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np

from ..workload import KERNEL_SIZE

# Interpolation points (plus the point at infinity): Barabasz et al.'s (arXiv:1803.10986, as topi
# uses them). At m=4, 1/2 in place of Lavin's 2 cuts F(4x4)'s fp16 error 1.5x (3.1e-3 -> 2.0e-3,
# experiments: f44_points) and bounds |V| by 49 max|d| instead of 100.
INTERPOLATION_POINTS = {
    2: (0, 1, -1),
    4: (0, 1, -1, Fraction(1, 2), -2),
    6: (0, 1, -1, 2, -2, Fraction(1, 2), Fraction(-1, 2)),
}


def _poly_mul_linear(coeffs: list[Fraction], root: Fraction) -> list[Fraction]:
    """Multiply the polynomial (coefficients low -> high) by (x - root)."""
    out = [Fraction(0)] * (len(coeffs) + 1)
    for i, a in enumerate(coeffs):
        out[i + 1] += a
        out[i] -= a * root
    return out


@cache
def transform_matrices_exact(m: int, r: int = KERNEL_SIZE, integer_b: bool = False) -> tuple:
    """A, B, G as nested tuples of Fractions (exact); integer_b scales B's columns to integers
    (the int8 input transform sums exactly in int32), G's rows by the inverse."""
    points = [Fraction(p) for p in INTERPOLATION_POINTS[m]]
    alpha = m + r - 1
    assert len(points) == alpha - 1
    # Toom-Cook linear convolution s = L[(E_m u) * (E_r g)], evaluation at the points and at
    # infinity (leading coefficient). The correlation is its transpose: A = E_m, B = L, G = E_r,
    # with L's Lagrange denominators N_i moved from B into G (B is integer for integer points).
    a_mat = [[p**j for j in range(m)] for p in points] + [
        [Fraction(int(j == m - 1)) for j in range(m)]
    ]
    g_mat, b_cols = [], []
    for i, p in enumerate(points):
        others = [q for k, q in enumerate(points) if k != i]
        denom = Fraction(1)
        lagrange = [Fraction(1)]
        for q in others:
            denom *= p - q
            lagrange = _poly_mul_linear(lagrange, q)
        sign = 1 if denom > 0 else -1
        g_mat.append([sign * p**j / denom for j in range(r)])
        b_cols.append([sign * c for c in lagrange] + [Fraction(0)])
    g_mat.append([Fraction(int(j == r - 1)) for j in range(r)])
    full = [Fraction(1)]
    for q in points:
        full = _poly_mul_linear(full, q)
    b_cols.append(full)
    if integer_b:
        for col, g_row in zip(b_cols, g_mat, strict=True):
            scale = math.lcm(*(c.denominator for c in col))
            col[:] = [c * scale for c in col]
            g_row[:] = [v / scale for v in g_row]
    b_mat = [[b_cols[col][row] for col in range(alpha)] for row in range(alpha)]
    return tuple(map(tuple, a_mat)), tuple(map(tuple, b_mat)), tuple(map(tuple, g_mat))


def transform_matrices(m: int, r: int = KERNEL_SIZE, integer_b: bool = False
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A (alpha, m), B (alpha, alpha), G (alpha, r) as float64 arrays (integer_b: as above)."""
    return tuple(np.array(mat, dtype=np.float64)
                 for mat in transform_matrices_exact(m, r, integer_b))


def tap_scale_exponents(m: int, r: int = KERNEL_SIZE) -> np.ndarray:
    """(alpha, alpha) ints p >= 0: a kernel storing V and M in fp16 scales tap t by 2^-p_t, p_t
    the ceil(log2) of |M_t| / |y| for independent inputs (the rms gains of B^T's and G's rows
    a and b over the direct sum's r), so that M overflows about when y does, not before (F(4x4)'s
    M reaches 5x |y| unscaled)."""
    _, b, g = transform_matrices(m, r)
    gain = np.linalg.norm(b.T, axis=1) * np.linalg.norm(g, axis=1)
    return np.maximum(0, np.ceil(np.log2(np.outer(gain, gain) / r))).astype(int)


def direct_conv2d_nhwc(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """float64 3x3 stride-1 pad-1 convolution: x NHWC, w HWIO -> y NHWK."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, h, wd, _ = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    y = np.zeros((n, h, wd, w.shape[3]))
    for r in range(3):
        for s in range(3):
            y += np.einsum("nhwc,ck->nhwk", xp[:, r : r + h, s : s + wd, :], w[r, s])
    return y


def input_tiles(x: np.ndarray, m: int) -> np.ndarray:
    """Overlapping alpha x alpha tiles d[N, TH, TW, alpha, alpha, C] of the zero-padded input."""
    n, h, wd, c = x.shape
    alpha = m + KERNEL_SIZE - 1
    th, tw = -(-h // m), -(-wd // m)
    xp = np.zeros((n, th * m + 2, tw * m + 2, c), dtype=x.dtype)
    xp[:, 1 : h + 1, 1 : wd + 1, :] = x
    tiles = np.empty((n, th, tw, alpha, alpha, c), dtype=x.dtype)
    for i in range(alpha):
        for j in range(alpha):
            tiles[:, :, :, i, j, :] = xp[:, i : i + th * m : m, j : j + tw * m : m, :]
    return tiles


def batched_products(x: np.ndarray, w: np.ndarray, m: int) -> np.ndarray:
    """float64 M[alpha, alpha, N, TH, TW, K]: each tap's GEMM over C of V = B^T d B (per tile)
    and U = G g G^T, what the BGEMM layout stores between its GEMM and OTrans."""
    _, b, g = transform_matrices(m)
    v = np.einsum("ih,ntsijc,jw->hwntsc", b, input_tiles(np.asarray(x, dtype=np.float64), m), b)
    u = np.einsum("hi,ijck,wj->hwkc", g, np.asarray(w, dtype=np.float64), g)
    return np.einsum("hwntsc,hwkc->hwntsk", v, u)


def winograd_conv2d_nhwc(x: np.ndarray, w: np.ndarray, m: int) -> np.ndarray:
    """float64 Winograd F(m x m, 3x3) in the BGEMM layout (equals direct conv up to rounding)."""
    a, _, _ = transform_matrices(m)
    n, h, wd, _ = x.shape
    mm = batched_products(x, w, m)
    y_tiles = np.einsum("hi,hwntsk,wj->ntisjk", a, mm, a)  # Y = A^T M A
    th, tw = mm.shape[3], mm.shape[4]
    y = y_tiles.reshape(n, th * m, tw * m, -1)
    return y[:, :h, :wd, :]
