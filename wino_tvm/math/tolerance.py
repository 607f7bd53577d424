"""Accuracy: the relative L2 error (against float64) each scheme is expected to reach, the
tolerance a check allows it, and the bar a default must meet (TVM-free).

One row per (input dtype, accumulator, Winograd m). `measured` is what the H100 benchmark (m=4:
the H200 runner) measured on uniform random data (the largest over its workloads, by C where it
grows with C); `tolerance` is what the checks allow, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..workload import Conv2dWorkload


@dataclass(frozen=True)
class Scheme:
    tolerance: float
    # measured rel L2: one number, or (C, error) points where it grows with C (None: not
    # measured on a GPU)
    measured: float | tuple[tuple[int, float], ...] | None
    reason: str


SCHEMES = {
    ("fp32", "fp32", 2): Scheme(1.5e-6, None, "float32 rounding of the transforms; ~3x the llvm "
                                              "build's worst (tests/test_compute_llvm.py)"),
    ("fp32", "fp32", 4): Scheme(6e-6, None, "as m=2, grown with F(4x4)'s larger A and G"),
    ("fp32", "fp32", 6): Scheme(1.2e-5, None, "as m=2, grown with F(6x6)'s larger A and G"),
    ("fp16", "fp32", 2): Scheme(1.7e-3, 6.2e-4,
                                "fp16 rounding of V and U dominates; ~3x the worst measured "
                                "(F(2, 3): 4.2e-4)"),
    ("fp16", "fp32", 4): Scheme(6e-3, 2.5e-3,
                                "fp16 V and U amplified by F(4x4)'s A and G (H200, points "
                                "0, +-1, 1/2, -2: pkf 2.1e-3, f44 2.5e-3 with M in fp16; "
                                "Lavin's points 3.1e-3); ~2.4x measured"),
    ("fp16", "fp32", 6): Scheme(3e-2, None, "F(6x6)'s amplification; ~3x the llvm build's"),
    ("fp16", "fp16", 2): Scheme(6.5e-3, ((64, 9.4e-4), (128, 1.06e-3), (256, 1.28e-3),
                                         (512, 1.52e-3)),
                                "fp16 accumulation grows with C (9.4e-4 at C=64, 1.5e-3 at "
                                "C=512); ~4x the worst"),
    ("fp16", "fp16", 4): Scheme(4e-2, None, "fp16 accumulation on F(4x4)'s amplified taps"),
    ("fp16", "fp16", 6): Scheme(1e-1, None, "fp16 accumulation on F(6x6)'s amplified taps"),
    ("int8", "int32", 2): Scheme(2.5e-2, 1.6e-2,
                                 "V requantised to int8 per tap (docs/int8.md): 1.6e-2 on "
                                 "uniform int8 data, 1.5x that"),
    ("int8", "int32", 4): Scheme(1.7e-1, 1.1e-1,
                                 "F(4x4)'s V spans up to 196x the input: requantised to int8 "
                                 "it keeps ~6 bits (docs/int8.md); 1.5x measured (H200)"),
    ("int8", "fp16", 2): Scheme(6.5e-3, 1.1e-3,
                                "V and U of int8 data exact in fp16; only the fp16 "
                                "accumulation rounds, as for fp16 inputs"),
    ("int8", "fp32", 2): Scheme(1e-6, 0.0,
                                "exact operands into fp32 sums of integers and halves, exact "
                                "below 2^23 (0 in 132 measured cases); fp32 rounding beyond"),
}

# An output's own rounding, by (input dtype, output dtype) where the rows above do not hold it
# (fp16 inputs' rows were measured with their fp16 y). int8 y: with the scale mapping max|y| to
# 127 the error is uniform over one step, rms max|y| / (127 sqrt(12)), 1.1-1.3% of rms(y) for
# outputs whose max is 5-6x their rms; 2x that. fp16 y of int8 inputs: 11 bits (rms 2^-11 /
# sqrt(12), 1.4e-4), 3x.
OUTPUT_ROUNDING = {("int8", "int8"): 2.5e-2, ("int8", "fp16"): 5e-4}

# The accuracy a default must reach, per input dtype: fp16 within 5x cuDNN's fp16 convolution
# (rel L2 2.1e-4 on the benchmark's data: its fp16 y's rounding), which F(2x2) and F(2, 3)
# with fp32 accumulators meet and F(4x4) does not; int8 within 2x cuDNN's int8 with an int8 y
# (1.1e-2 to 1.3e-2).
ACCURACY_BAR = {"fp16": 5 * 2.1e-4, "int8": 2 * 1.3e-2, "fp32": 1e-5}


def rel_l2_tolerance(wl: Conv2dWorkload) -> float:
    """What a correctness check of wl's scheme allows."""
    rounding = OUTPUT_ROUNDING.get((wl.dtype, wl.out), 0.0)
    return SCHEMES[(wl.dtype, wl.accum, wl.m)].tolerance + rounding


def expected_error(wl: Conv2dWorkload) -> float | None:
    """The scheme's measured error with its dtype's default y, at the nearest measured C at or
    above wl's (None: not measured on a GPU)."""
    measured = SCHEMES[(wl.dtype, wl.accum, wl.m)].measured
    if not isinstance(measured, tuple):
        return measured
    return next((err for c, err in measured if c >= wl.c), measured[-1][1])


def within_bar(wl: Conv2dWorkload, bar: float | None = None) -> bool:
    """Whether wl's scheme is expected to stay within the accuracy bar (default: its dtype's)."""
    expected = expected_error(wl)
    return expected is not None and expected <= (ACCURACY_BAR[wl.dtype] if bar is None else bar)


def expected_error_note(wl: Conv2dWorkload) -> str | None:
    """A warning for a scheme beyond its dtype's accuracy bar (an explicit choice), else None."""
    if within_bar(wl):
        return None
    expected = expected_error(wl)
    measured = "not measured" if expected is None else f"about {expected:.1e}"
    return (f"{wl.dtype} with {wl.accum} accumulators at m={wl.m}: relative L2 error "
            f"{measured}, beyond the {wl.dtype} accuracy bar {ACCURACY_BAR[wl.dtype]:.1e} "
            "(wino_tvm/math/tolerance.py); the defaults (m=2, the dtype's first accumulator) "
            "are within it")
