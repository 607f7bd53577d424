"""A^T applied to the full kernel's accumulators in registers (reconstructor.full.output_rows)."""

from __future__ import annotations

import numpy as np
import pytest
import regex
from stored_sources import full_kernel, stored

from wino_tvm.kernels.pkf.reconstructor.cblocks import find_loops
from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.full import output_rows
from wino_tvm.kernels.pkf.reconstructor.pipeline import Options, accumulator_type, reconstruct
from wino_tvm.kernels.pkf.reconstructor.source import split_kernels
from wino_tvm.math.winograd import transform_matrices

STAGED = regex.compile(r"store_matrix_sync\(\(&\((?P<view>\(\(float\*\)\(\(unsigned char\*\)"
                       r"\w+\)\))\[(?P<index>[^\]]+)\]\)\), at_z, ")
ROW_READ = regex.compile(r"\(\(float\*\)\(\(unsigned char\*\)buf_dyn_shmem_ptr\)\)\[")


def test_output_rows_of_f2x2() -> None:
    # A = [[1, 0], [1, 1], [1, -1], [0, 1]]: rows 0 and 3 are e_0 and e_1.
    assert output_rows(4) == [(0, [1, 1, 1, 0]), (3, [0, 1, -1, 1])]


def test_f4x4_has_no_such_rows() -> None:
    with pytest.raises(ReconstructError, match=r"F\(4x4\)'s A has no row \+-e_1"):
        output_rows(6)


def test_staged_rows_give_back_the_output_transform() -> None:
    """OTrans's A^T M' A over the staged rows (zero elsewhere) equals A^T M A, on random M."""
    a, _, _ = transform_matrices(2)
    mm = np.random.default_rng(7).standard_normal((4, 4))
    staged = np.zeros_like(mm)
    for row, coef in output_rows(4):
        staged[row] = np.asarray(coef, dtype=np.float64) @ mm
    np.testing.assert_allclose(a.T @ staged @ a, a.T @ mm @ a, rtol=0, atol=1e-12)


def test_fp16_full_kernel_stages_two_rows_and_reads_only_those() -> None:
    kernel = full_kernel(reconstruct(*stored("fp16-m2"), Options("full")).source)
    body = kernel.body
    stores = list(STAGED.finditer(body))
    assert len(stores) == 2  # one per output row, inside the tile-fragment loop
    assert body.count("store_matrix_sync(") == 2  # no tap-row stores left
    # A counted loop over the lane's elements (cblocks.find_loops reads every loop).
    assert {loop.var: loop.extent for loop in find_loops(body)}["at_e"] == 8
    # Rows 0 and 3 (x 2560 floats), each combined from its nonzero coefficients.
    assert [s["index"].split(" + ")[1] for s in stores] == ["(2560 * 0)", "(2560 * 3)"]
    assert regex.search(r"at_z\.x\[at_e\] = M_wmma_accumulator_ptr\[\(\(1 \* 2\) \+ ax1_0\)\]"
                        r"\.x\[at_e\] - M_wmma_accumulator_ptr\[\(\(2 \* 2\) \+ ax1_0\)\]"
                        r"\.x\[at_e\] \+ M_wmma_accumulator_ptr\[\(\(3 \* 2\) \+ ax1_0\)\]", body)
    # OTrans: 2 rows x 2 columns of MA x 3 taps instead of 4 x 2 x 3.
    otrans = body[body.rindex("__syncthreads();"):]
    assert len(ROW_READ.findall(otrans)) == 12


def test_int8_full_kernel_keeps_its_tap_rows() -> None:
    """int8 OTrans dequantises each tap before A, so A^T cannot come first."""
    assert "at_z" not in full_kernel(reconstruct(*stored("int8-m2"), Options("full")).source).body


@pytest.mark.parametrize(("name", "accumulator"), [("fp16-m2", "float"), ("int8-m2", "int")])
def test_accumulator_type_decides(name: str, accumulator: str) -> None:
    """Only fp32 accumulators get A^T in registers (fp16 ones would round the rows once more)."""
    bgemm = next(k for k in split_kernels(stored(name)[0]).kernels if "mma_sync" in k.body)
    assert accumulator_type(bgemm) == accumulator
