"""The lane kernel's int8 y rounded in half2 (templates/lane_layout.cu: set_half_multiplier,
round_int8), modelled in numpy: saturated rint of every finite half sum times y's multiplier,
but for a step where the sum lies within the multiplier's half rounding of a half-integer."""

from __future__ import annotations

import math

import numpy as np
import pytest

U_SHIFT = 11  # kUShift at C = 64


def _half_multiplier(y_scale: float) -> tuple[np.float16, np.float16]:
    """set_half_multiplier: 2^U_SHIFT / y_scale as (2^p, s_h), both finite halves."""
    s, pow2 = float(np.float32(2.0**U_SHIFT) * np.float32(1 / np.float32(y_scale))), 1.0
    _, e = math.frexp(s)
    if e > 15:
        p = min(e - 15, 15)
        pow2, s = 2.0**p, s / 2.0**p
    return np.float16(pow2), np.float16(min(max(s, -32768.0), 32768.0))


def _round_int8(v: np.ndarray, pow2: np.float16, s_h: np.float16) -> np.ndarray:
    """round_int8: HMUL2, HFMA2 with 1536 (one rounding to a half), two HMNMX2, low byte."""
    with np.errstate(over="ignore"):
        t = (v * pow2).astype(np.float16)  # exact, or +-inf
        r = (t.astype(np.float64) * float(s_h) + 1536.0).astype(np.float16)
    r = np.minimum(np.maximum(r, np.float16(1409)), np.float16(1663))
    return (r.view(np.uint16) & 0xFF).astype(np.uint8).view(np.int8).astype(np.int64)


def _reachable_halves() -> np.ndarray:
    """Every finite half OTrans's sums can take: 0, or at least U's step (a quarter of an
    integer unit, 2^-(U_SHIFT + 2))."""
    v = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    return v[np.isfinite(v) & ((v == 0) | (np.abs(v) >= 2.0 ** -(U_SHIFT + 2)))]


@pytest.mark.parametrize("y_scale", [1000.0, 37.3, 0.5, 1 / 16, 1e-3, 1e-9, 3e6, -25.0])
def test_half_rounding_is_saturated_rint(y_scale: float) -> None:
    v = _reachable_halves()
    got = _round_int8(v, *_half_multiplier(y_scale))
    exact = v.astype(np.float64) * (2.0**U_SHIFT / y_scale)
    want = np.clip(np.rint(exact), -127, 127).astype(np.int64)
    off = got != want
    # A step apart only where the half multiplier's rounding (2^-12 of it) crosses a
    # half-integer below saturation; saturated where the exact value is, the split 2^p s_h
    # (y_scale 1e-3 and below) included.
    near_half = np.abs(np.abs(exact - np.floor(exact)) - 0.5) <= np.abs(exact) * 2.0**-11 + 1e-9
    assert np.all(np.abs(got - want) <= 1)
    assert np.all(near_half[off] & (np.abs(exact[off]) < 128)), exact[off][:5]
    saturated = np.abs(exact) >= 127.5
    np.testing.assert_array_equal(got[saturated], want[saturated])


def test_half_rounding_ties_go_to_even() -> None:
    pow2, s_h = _half_multiplier(2.0**U_SHIFT)  # multiplier 1: y = rint(v)
    v = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 126.5, -126.5, 127.4], dtype=np.float16)
    np.testing.assert_array_equal(_round_int8(v, pow2, s_h), [0, 2, 2, 0, -2, 126, -126, 127])
