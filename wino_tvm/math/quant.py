"""INT8 Winograd-domain quantisation scheme (docs/int8.md); the TE helpers import TVM lazily."""

from __future__ import annotations

import numpy as np

from .winograd import transform_matrices

QMAX = 127
INPUT_ABSMAX = 128  # int8 activations lie in [-128, 127]
MIN_ABSMAX = 1e-12  # keeps an all-zero weight slice from dividing by zero


def input_tap_scales(m: int) -> np.ndarray:
    """Per-tap scale s[h, w] of V = B^T d B from the bound |V[h,w]| <= 128 * |B|_h * |B|_w.

    |B|_h is the L1 norm of column h of B, so V / s always lies in [-127, 127]: the bound makes
    saturation impossible for any int8 input, with no calibration data needed at run time.
    """
    _, b, _ = transform_matrices(m, integer_b=True)
    col_l1 = np.abs(b).sum(axis=0)
    return INPUT_ABSMAX * np.outer(col_l1, col_l1) / QMAX


def quantize_input_taps(v: np.ndarray, m: int) -> np.ndarray:
    """The kernels' V rounding exactly: float32(V) * float32(1/s), round half to even, clamp.

    V is an exact integer below 2^24, so the only rounding before rint is the float32 product.
    """
    inv = input_tap_inv_scales(m).reshape(m + 2, m + 2, *([1] * (v.ndim - 2)))
    prod = v.astype(np.float32) * inv
    return np.clip(np.rint(prod), -QMAX, QMAX).astype(np.float64)


def input_tap_inv_scales(m: int) -> np.ndarray:
    """float32 1/s[h, w]: the constant the input transform multiplies by."""
    return (1.0 / input_tap_scales(m)).astype(np.float32)


def saturate_int8(value):
    """Round a float32 TE expression to nearest and clamp it to [-127, 127] as int8."""
    from tvm import tirx

    clipped = tirx.min(
        tirx.max(tirx.round(value), tirx.const(-QMAX, "float32")), tirx.const(QMAX, "float32")
    )
    return clipped.astype("int8")


def quantize_reference(x: np.ndarray, w: np.ndarray, m: int) -> np.ndarray:
    """float64 model of the int8 pipeline (the kernels' rounding points); x NHWC, w HWIO int8."""
    from .winograd import input_tiles

    a, b, g = transform_matrices(m, integer_b=True)
    n, h, wd, _ = x.shape
    d = input_tiles(np.asarray(x, dtype=np.float64), m)
    v = np.einsum("ih,ntsijc,jw->hwntsc", b, d, b)
    s_v = input_tap_scales(m)
    v_q = quantize_input_taps(v, m)
    u = np.einsum("hi,ijck,wj->hwkc", g, np.asarray(w, dtype=np.float64), g)
    s_u = np.maximum(np.abs(u).max(axis=3), MIN_ABSMAX) / QMAX
    u_q = np.clip(np.rint(u / s_u[..., None]), -QMAX, QMAX)
    mm = np.einsum("hwntsc,hwkc->hwntsk", v_q, u_q)
    mm = mm * s_v[:, :, None, None, None, None] * s_u[:, :, None, None, None, :]
    y = np.einsum("hi,hwntsk,wj->ntisjk", a, mm, a)
    th, tw = d.shape[1], d.shape[2]
    return y.reshape(n, th * m, tw * m, -1)[:, :h, :wd, :]
