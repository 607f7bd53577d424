"""V's magic-number rounding in int8 ITrans (reconstructor.rounding): bit-equal to the
reference's rint and clamp for every reachable V, and applied to V's stores only."""

from __future__ import annotations

import numpy as np
import pytest
from stored_sources import stored

from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.identify import identify_stages
from wino_tvm.kernels.pkf.reconstructor.pipeline import Options, reconstruct
from wino_tvm.kernels.pkf.reconstructor.rounding import MAGIC, round_input_taps
from wino_tvm.kernels.pkf.reconstructor.source import Kernel, split_kernels
from wino_tvm.math import quant
from wino_tvm.math.winograd import transform_matrices


def _magic_round(v: np.ndarray, inv: np.float32) -> np.ndarray:
    """The rewritten store in float32: __fadd_rn(float(v) * inv, MAGIC), low byte as int8."""
    product = v.astype(np.float32) * inv  # one float32 rounding, as the kernel's FMUL
    total = product + np.float32(float.fromhex(MAGIC.rstrip("f")))
    return total.view(np.int32).astype(np.int8).astype(np.float64)


@pytest.mark.parametrize("m", [2, 4])
def test_magic_rounding_equals_rint_and_clamp_for_every_reachable_v(m: int) -> None:
    """Every integer V an int8 input can give (|V| <= 128 |B|_h |B|_w per tap), every tap."""
    _, b, _ = transform_matrices(m)
    col_l1 = np.abs(b).sum(axis=0)
    inv = quant.input_tap_inv_scales(m)
    alpha = m + 2
    checked = 0
    for h in range(alpha):
        for w in range(alpha):
            bound = int(round(quant.INPUT_ABSMAX * col_l1[h] * col_l1[w]))
            v = np.arange(-bound, bound + 1, dtype=np.int64)
            taps = np.zeros((alpha, alpha, v.size))
            taps[h, w] = v
            want = quant.quantize_input_taps(taps, m)[h, w]
            np.testing.assert_array_equal(_magic_round(v, inv[h, w]), want)
            checked += v.size
    assert checked > alpha * alpha * 1000


def test_magic_rounding_is_not_a_truncation() -> None:
    """Ties go to even and negatives round to nearest: the identity is not a cast."""
    v = np.array([2, 6, -2, -6, 3, -3], dtype=np.int64)  # v / 4: .5, 1.5, -.5, -1.5, .75, -.75
    np.testing.assert_array_equal(_magic_round(v, np.float32(0.25)), [0, 2, 0, -2, 1, -1])


def _itrans(name: str) -> Kernel:
    return identify_stages(split_kernels(stored(name)[0]).kernels).itrans


def test_every_int8_v_rounding_is_rewritten() -> None:
    itrans = _itrans("int8-m2")
    rounded = round_input_taps(itrans)
    stores = itrans.body.count("nearbyintf")
    assert stores > 0 and "nearbyintf" not in rounded.body
    assert rounded.body.count("__fadd_rn(") == stores
    # Only the rounding changed: undoing the rewrite gives TVM's text back.
    clamp = "), -0x1.fcp+6f/*-1.270000e+02*/), 0x1.fcp+6f/*1.270000e+02*/))"
    undone = (rounded.body.replace("__float_as_int(__fadd_rn(", "min(max(nearbyintf(")
              .replace(f", {MAGIC})))", clamp))
    assert undone == itrans.body


def test_reconstruct_rounds_only_v_and_only_when_fused() -> None:
    source, launches = stored("int8-m2")
    itrans_roundings = _itrans("int8-m2").body.count("nearbyintf")
    for fusion in ("syncfree", "shmem", "llc", "full"):
        out = reconstruct(source, launches, Options(fusion)).source
        # U's quantiser (KTrans) and the int8 output keep theirs: those clamps can bind.
        # (Warp specialisation copies ITrans once per warp.)
        copies, left = divmod(out.count("__fadd_rn("), itrans_roundings)
        assert copies >= 1 and left == 0, fusion
        assert out.count("nearbyintf") == source.count("nearbyintf") - itrans_roundings, fusion
    assert "__fadd_rn" not in reconstruct(source, launches, Options("none")).source


def test_fp16_itrans_is_left_alone() -> None:
    itrans = _itrans("fp16-m2")
    assert round_input_taps(itrans) is itrans


def test_an_int8_itrans_without_the_rounding_is_refused() -> None:
    itrans = _itrans("int8-m2")
    plain = Kernel(itrans.name, itrans.launch_bounds, itrans.params,
                   itrans.body.replace("nearbyintf", "rintf"))
    with pytest.raises(ReconstructError, match="round_input_taps: .*without V's rounding"):
        round_input_taps(plain)
