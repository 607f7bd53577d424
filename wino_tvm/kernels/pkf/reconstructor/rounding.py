"""int8 ITrans: V's rounding by the float32 magic number, an instruction TVM cannot print.

TVM rounds each tap V * (1/s) with nearbyintf and clamps it to [-127, 127]: FRND, F2I and two
FMNMX per element in SASS, 12% of the 960^2 int8 kernel's stall samples on the H100
(experiments: whole_tiles_int8). Adding 1.5 * 2^23 to a float32 v with |v| < 2^22 rounds
v to the nearest integer, ties to even, as nearbyintf does, and leaves rint(v) in the sum's low
mantissa bits: its low byte is rint(v) as int8. The clamp never binds, because the input tap
scales bound |V / s| by 127 for every int8 input (wino_tvm.math.quant.input_tap_scales).
"""

from __future__ import annotations

import regex

from .errors import ReconstructError
from .source import Kernel
from .text import named_pass

# 1.5 * 2^23: a float32 in [2^23, 2^24) has ulp 1, and the 1.5 keeps v's sign out of the
# exponent. __fadd_rn, not `+`: nvcc must not contract the product before it into an FFMA,
# which would round v * (1/s) + magic once instead of twice (the reference rounds the product).
MAGIC = "0x1.8p+23f"
_QMAX = r"0x1\.fcp\+6f/\*[^*]*\*/"  # 127, as TVM prints it (hex float and a decimal comment)
_ROUND_CLAMP = regex.compile(
    r"\(\(signed char\)min\(max\(nearbyintf\((?P<value>\((?:[^()]++|(?&inner))*\))\), "
    rf"-{_QMAX}\), {_QMAX}\)\)"
    r"(?(DEFINE)(?P<inner>\((?:[^()]++|(?&inner))*\)))"
)


@named_pass
def round_input_taps(itrans: Kernel) -> Kernel:
    """itrans with each int8 tap's nearbyintf and clamp replaced by the magic-number rounding;
    an fp16 ITrans (no rounding to int8) is returned as it is."""
    if "signed char" not in itrans.element_types():
        return itrans
    body, count = _ROUND_CLAMP.subn(
        lambda m: f"((signed char)__float_as_int(__fadd_rn({m['value']}, {MAGIC})))", itrans.body)
    if count == 0:
        raise ReconstructError(f"{itrans.name}: an int8 ITrans without V's rounding "
                               "((signed char)min(max(nearbyintf(...), -127), 127))")
    if "nearbyintf" in body:
        raise ReconstructError(f"{itrans.name}: a rounding of another form is left")
    return Kernel(itrans.name, itrans.launch_bounds, itrans.params, body)
