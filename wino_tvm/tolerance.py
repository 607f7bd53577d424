"""Relative L2 error each (dtype, accumulator, m) must stay under, against float64 (TVM-free).

Measured on the llvm build (tests/test_compute_llvm.py) with C up to 64 and set about 3x above
the worst measurement: fp16 rounding of V and U dominates and grows with the transform's
amplification (m=4's A and G). int8 is bounded by its scheme (docs/int8.md): 1.6% (m=2) and
about 14% (m=4) measured on uniform int8 data, tolerance 1.5x that. An int8 output adds its
rounding: with the scale mapping max|y| to 127 the error is uniform over one step, rms
max|y| / (127 sqrt(12)), 1.1-1.3% of rms(y) for outputs whose max is 5-6x their rms (Gaussian-like,
10^6-10^8 elements); the tolerance adds 2x that.
"""

from __future__ import annotations

from .workload import Conv2dWorkload

REL_L2 = {
    ("fp32", "fp32", 2): 1.5e-6,
    ("fp32", "fp32", 4): 6e-6,
    ("fp32", "fp32", 6): 1.2e-5,
    ("fp16", "fp32", 2): 1.7e-3,
    ("fp16", "fp32", 4): 1e-2,
    ("fp16", "fp32", 6): 3e-2,
    ("fp16", "fp16", 2): 6.5e-3,
    ("fp16", "fp16", 4): 4e-2,
    ("fp16", "fp16", 6): 1e-1,
    ("int8", "int32", 2): 2.5e-2,
    ("int8", "int32", 4): 2.2e-1,
    # The lane kernel's int8: V and U exact in fp16, so only the fp16 accumulation rounds, as
    # for fp16 inputs with fp16 accumulators.
    ("int8", "fp16", 2): 6.5e-3,
    # The F(2, 3) kernel's int8: the same exact operands into fp32 accumulators, whose sums of
    # integers and halves are exact below 2^23 (they may reach 1.5e5 C): exact on the harness's
    # data (bench/results/h100/tune_int8_f23/: 0 in 132 cases), rounding of fp32's order beyond.
    ("int8", "fp32", 2): 1e-6,
}


# An output's own rounding, by (input dtype, output dtype) where the entries above do not hold it
# (fp16 inputs' tolerances were measured with their fp16 y): int8 as above; fp16 y of int8
# inputs, rounded to 11 bits (rms of the relative error under 2^-11 / sqrt(12), 1.4e-4), 3x.
OUTPUT_ROUNDING_REL_L2 = {("int8", "int8"): 2.5e-2, ("int8", "fp16"): 5e-4}


def rel_l2_tolerance(wl: Conv2dWorkload) -> float:
    rounding = OUTPUT_ROUNDING_REL_L2.get((wl.dtype, wl.out), 0.0)
    return REL_L2[(wl.dtype, wl.accum, wl.m)] + rounding
