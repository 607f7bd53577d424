"""Measure the int8 Winograd scheme's error (the table in docs/int8.md).

numpy only: the pipeline is quant.quantize_reference, the float64 model of the int8 kernels
(same rounding points), against float64 direct convolution. Run from the repository root:

    python docs/int8_error.py            # prints a Markdown table
"""

from __future__ import annotations

import argparse

import numpy as np

from wino_tvm.quant import QMAX, quantize_reference
from wino_tvm.winograd_math import direct_conv2d_nhwc

SEED = 0
SHAPES = [(1, 56, 56, 64, 64), (1, 28, 28, 128, 128), (4, 14, 14, 64, 32)]  # N, H, W, C, K
TILE_SIZES = (2, 4)


def rel_l2(got: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def quantize_symmetric(t: np.ndarray, axis: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric absmax int8 quantisation: t ~= q * scale, q in [-127, 127]."""
    absmax = (
        np.abs(t).max()
        if axis is None
        else np.abs(t).max(
            axis=tuple(i for i in range(t.ndim) if i != axis % t.ndim), keepdims=True
        )
    )
    scale = absmax / QMAX
    return np.clip(np.rint(t / scale), -QMAX, QMAX).astype(np.int8), scale


def measure(shape, m: int, rng: np.random.Generator) -> dict[str, float]:
    n, h, w, c, k = shape
    out = {}
    # (a) uniform int8 data over the whole int8 range.
    x = rng.integers(-128, 128, size=(n, h, w, c)).astype(np.int8)
    wt = rng.integers(-128, 128, size=(3, 3, c, k)).astype(np.int8)
    out["uniform"] = rel_l2(quantize_reference(x, wt, m), direct_conv2d_nhwc(x, wt))
    # (b) N(0, 1) data quantised symmetrically: x per tensor, w per output channel (absmax).
    xf = rng.standard_normal((n, h, w, c))
    wf = rng.standard_normal((3, 3, c, k))
    xq, sx = quantize_symmetric(xf, None)
    wq, sw = quantize_symmetric(wf, -1)  # sw has shape (1, 1, 1, K)
    dequant = sx * sw.reshape(k)
    y_int_exact = direct_conv2d_nhwc(xq, wq)  # exact conv of the quantised ints
    y_wino = quantize_reference(xq, wq, m)
    y_float = direct_conv2d_nhwc(xf, wf)
    out["normal_vs_float"] = rel_l2(y_wino * dequant, y_float)
    out["normal_vs_ints"] = rel_l2(y_wino, y_int_exact)
    out["direct_int8_vs_float"] = rel_l2(y_int_exact * dequant, y_float)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    rows = []
    for shape in SHAPES:
        for m in TILE_SIZES:
            # One generator per (shape, m), so each row is reproducible on its own.
            rng = np.random.default_rng([args.seed, m, *shape])
            rows.append((shape, m, measure(shape, m, rng)))
    print(f"seed {args.seed}; relative L2 error ||y - y_ref|| / ||y_ref||\n")
    print(
        "| N,H,W,C,K | m | (a) uniform int8 vs exact conv | (b) N(0,1) vs float conv "
        "| (b) N(0,1) vs conv of the ints | (b) direct int8 conv vs float conv |"
    )
    print("|---|---|---|---|---|---|")
    for shape, m, e in rows:
        print(
            f"| {','.join(map(str, shape))} | {m} | {e['uniform']:.2%} "
            f"| {e['normal_vs_float']:.2%} | {e['normal_vs_ints']:.2%} "
            f"| {e['direct_int8_vs_float']:.2%} |"
        )


if __name__ == "__main__":
    main()
