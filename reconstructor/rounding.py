"""int8 ITrans: V's rounding by the float32 magic number, an instruction TVM cannot print.

TVM rounds each tap V * (1/s) with nearbyintf and clamps it to [-127, 127]: FRND, F2I and two
FMNMX per element in SASS, 12% of the 960^2 int8 kernel's stall samples on the H100
(bench/results/h100/whole_tiles_int8/). Adding 1.5 * 2^23 to a float32 v with |v| < 2^22 rounds
v to the nearest integer, ties to even, as nearbyintf does, and leaves rint(v) in the sum's low
mantissa bits: its low byte is rint(v) as int8. The clamp never binds, because the input tap
scales bound |V / s| by 127 for every int8 input (wino_tvm.quant.input_tap_scales).
"""

from __future__ import annotations

import regex

from .errors import ReconstructError
from .passes import _named
from .source import Kernel

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


@_named
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


# One rounded tap stored as a byte, as round_input_taps leaves it and the fusion passes place
# it: `V[INDEX] = ((signed char)__float_as_int(...));`, V the shared slice (`((signed
# char*)(((unsigned char*)buf) + offset))` in a fused kernel).
_BYTE_STORE = regex.compile(
    r"^(?P<indent>[ ]*)(?P<ptr>\w+|\(\(signed char\*\)\(\(\(unsigned char\*\)\w+\) \+ \d+\)\))"
    r"\[(?P<index>[^\n]*)\] = "
    r"\(\(signed char\)(?P<value>__float_as_int\([^\n]*\))\);$"
)
_OFFSET = regex.compile(r"^\((?P<base>.*) \+ (?P<offset>\d+)\)$")
CHANNELS_PER_WORD = 4


def _split_index(index: str) -> tuple[str, int]:
    """`(BASE + N)` -> (BASE, N); any other index -> (index, 0)."""
    m = _OFFSET.match(index)
    return (m["base"], int(m["offset"])) if m else (index, 0)


@_named
def pack_input_tap_stores(itrans: Kernel) -> Kernel:
    """itrans with each run of 4 byte stores of adjacent channels (one 4-byte-aligned word of V)
    packed into one 32-bit store. nvcc merges them itself only where it can prove the alignment
    (not where OTrans-like permuted tile rows make the index a sum of shifts and masks), and a
    byte store costs the bank wavefronts of a word store (bench/results/h100/ot_rows_ab/)."""
    lines = itrans.body.split("\n")
    out, i, packed = [], 0, 0
    while i < len(lines):
        run = [_BYTE_STORE.match(line) for line in lines[i:i + CHANNELS_PER_WORD]]
        if len(run) == CHANNELS_PER_WORD and all(run):
            parts = [_split_index(m["index"]) for m in run]
            base, first = parts[0]
            if (all(m["ptr"] == run[0]["ptr"] for m in run) and first % CHANNELS_PER_WORD == 0
                    and parts == [(base, first + k) for k in range(CHANNELS_PER_WORD)]):
                v = [m["value"] for m in run]
                index = f"({base} + {first})" if first else base
                out.append(f"{run[0]['indent']}*(int*)({run[0]['ptr']} + {index}) = "
                           f"__byte_perm(__byte_perm({v[0]}, {v[1]}, 0x0040), "
                           f"__byte_perm({v[2]}, {v[3]}, 0x0040), 0x5410);")
                i += CHANNELS_PER_WORD
                packed += 1
                continue
        out.append(lines[i])
        i += 1
    if packed == 0:
        return itrans
    return Kernel(itrans.name, itrans.launch_bounds, itrans.params, "\n".join(out))
