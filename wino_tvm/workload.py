"""The convolution a kernel computes: shape, precision and Winograd tile size (TVM-free)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import WinoError

DTYPES = ("fp32", "fp16", "int8")
# Accumulator precision of the BGEMM per input dtype; the first is the default. int8 with fp16
# accumulators is the lane kernel's: F(2x2)'s V and U of int8 data are exact in fp16, so it runs
# on fp16 tensor cores (templates/lane_layout.cu, docs/int8.md), m=2 only. int8 with fp32 ones is
# the F(2, 3) kernel's (templates/f23_wgmma.cu): the same exact fp16 operands, m=2.
ACCUMULATORS = {"fp32": ("fp32",), "fp16": ("fp32", "fp16"), "int8": ("int32", "fp16", "fp32")}
# Output precision per input dtype; the first is the default. int8 dequantises in the output
# transform to integer units (sums of int8 products: 10^5-10^7, beyond fp16's range), so its fp16
# and int8 outputs are divided by a per-tensor scale given at run time, OUTPUT_SCALE: fp16 y =
# conv / y_scale, int8 y = saturate(round(conv / y_scale)).
OUTPUTS = {"fp32": ("fp32",), "fp16": ("fp16",), "int8": ("fp32", "fp16", "int8")}
OUTPUT_SCALE = "y_scale"
TILE_SIZES = (2, 4, 6)
INT8_TILE_SIZES = (2, 4)  # B must be integer for the exact int32 input transform
# int8 on fp16 MMAs: F(2x2)'s (and F(2, 3)'s) V of int8 data is exact in fp16, F(4x4)'s is not
INT8_FP16_TILE_SIZES = (2,)
KERNEL_SIZE = 3
# Bytes of one element of each precision (inputs, accumulators, outputs).
BYTES = {"fp32": 4, "fp16": 2, "int32": 4, "int8": 1}
# Fused output epilogue, applied in this order: y = relu(conv + bias[k] + residual[n, h, w, k]).
EPILOGUE_OPS = ("bias", "residual", "relu")
# The ops that read a tensor (the kernels' extra parameters, in this order); relu reads none.
EPILOGUE_INPUTS = ("bias", "residual")


@dataclass(frozen=True)
class Conv2dWorkload:
    """Forward NHWC conv, 3x3 HWIO weights, stride 1, zero padding 1, as Winograd F(m x m, 3x3)."""

    n: int
    h: int
    w: int
    c: int
    k: int
    dtype: str = "fp16"
    # F(2x2): within every dtype's accuracy bar (math/tolerance.py); larger tiles are a choice.
    m: int = 2
    accum: str = ""
    kernel: int = 3
    stride: int = 1
    padding: int = 1
    epilogue: tuple[str, ...] = ()
    out: str = ""

    def __post_init__(self) -> None:
        for name in ("n", "h", "w", "c", "k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise WinoError(f"workload {name.upper()}={value!r} must be a positive integer")
        if (self.kernel, self.stride, self.padding) != (KERNEL_SIZE, 1, 1):
            raise WinoError(
                f"kernel={self.kernel}, stride={self.stride}, padding={self.padding} is not "
                "supported: wino-tvm implements only 3x3 convolutions with stride 1 and padding 1"
            )
        if self.dtype not in DTYPES:
            raise WinoError(f"unknown dtype {self.dtype!r}: choose one of {', '.join(DTYPES)}")
        if not self.accum:
            object.__setattr__(self, "accum", ACCUMULATORS[self.dtype][0])
        if self.accum not in ACCUMULATORS[self.dtype]:
            raise WinoError(
                f"accumulator {self.accum!r} is not available for {self.dtype}: choose one of "
                f"{', '.join(ACCUMULATORS[self.dtype])}"
            )
        if isinstance(self.m, bool) or self.m not in TILE_SIZES or not isinstance(self.m, int):
            raise WinoError(
                f"Winograd tile size m={self.m!r} is not supported: choose m in {list(TILE_SIZES)}"
            )
        if self.dtype == "int8" and self.m not in INT8_TILE_SIZES:
            raise WinoError(
                f"int8 supports m in {list(INT8_TILE_SIZES)} only: F(6x6)'s B has fractional "
                "entries, so the int8 input transform would not be exact; use m=2 or m=4"
            )
        if self.m not in supported_tile_sizes(self.dtype, self.accum):
            raise WinoError(
                f"int8 with {self.accum} accumulators runs on fp16 MMAs and takes m=2 only, not "
                f"m={self.m}: F(4x4)'s input transform of int8 data (up to 12800) is not exact "
                "in fp16; use m=2 or accum int32"
            )

        object.__setattr__(self, "epilogue", canonical_epilogue(self.epilogue))
        object.__setattr__(self, "out", resolve_output(self.dtype, self.out))

    @classmethod
    def parse_shape(cls, text: str, **kwargs) -> Conv2dWorkload:
        """Build from 'N,H,W,C,K' (as the CLI takes it)."""
        parts = text.replace("x", ",").split(",")
        try:
            n, h, w, c, k = (int(p) for p in parts)
        except ValueError:
            raise WinoError(
                f"--shape {text!r} must be five integers N,H,W,C,K (e.g. 1,224,224,64,64)"
            ) from None
        return cls(n, h, w, c, k, **kwargs)

    @property
    def epilogue_dtype(self) -> str:
        return epilogue_dtype(self.dtype, self.out)

    @property
    def forward_inputs(self) -> tuple[str, ...]:
        return forward_inputs(self.epilogue, self.dtype, self.out)

    @property
    def alpha(self) -> int:
        """Input tile edge m + r - 1."""
        return self.m + KERNEL_SIZE - 1

    @property
    def tiles_h(self) -> int:
        return math.ceil(self.h / self.m)

    @property
    def tiles_w(self) -> int:
        return math.ceil(self.w / self.m)

    @property
    def tiles_per_image(self) -> int:
        return self.tiles_h * self.tiles_w

    @property
    def ntiles(self) -> int:
        return self.n * self.tiles_per_image

    def image_tile_stride(self, multiple: int) -> int:
        """Rows of V and M from one image's first tile to the next: tiles_per_image (images back
        to back, a block may straddle two), or that rounded up to a multiple of the BGEMM tile
        where TVM cannot bind OTrans's fused (image, tile) loop: when tiles_w divides the
        multiple and tiles_per_image and the multiple do not divide one another (found by a
        sweep of 1152 shapes; the padded images' blocks each stay inside one image)."""
        if multiple <= 0:
            raise WinoError(f"tile multiple {multiple} must be positive")
        per_image = self.tiles_per_image
        if multiple % self.tiles_w == 0 and per_image % multiple and multiple % per_image:
            return math.ceil(per_image / multiple) * multiple
        return per_image

    def ntiles_padded(self, multiple: int) -> int:
        """Rows of V and M: N images image_tile_stride apart, rounded up to a multiple of the
        BGEMM tile (padded rows read zeros)."""
        return math.ceil(self.n * self.image_tile_stride(multiple) / multiple) * multiple

    def tile_rows(self, multiple: int) -> list[int]:
        """Row of V and M of each real tile, in (image, tile row, tile column) order."""
        stride = self.image_tile_stride(multiple)
        return [b * stride + r for b in range(self.n) for r in range(self.tiles_per_image)]

    @property
    def flops(self) -> int:
        """Direct-convolution FLOPs, the convention for effective TFLOP/s."""
        return 2 * self.n * self.h * self.w * self.c * self.k * KERNEL_SIZE * KERNEL_SIZE

    @property
    def key(self) -> str:
        return f"N{self.n}_H{self.h}_W{self.w}_C{self.c}_K{self.k}"

    def shape_dict(self) -> dict[str, int]:
        return {"N": self.n, "H": self.h, "W": self.w, "C": self.c, "K": self.k}


def supported_tile_sizes(dtype: str, accum: str) -> tuple[int, ...]:
    """The m values a dtype and accumulator take: int8 those with an integer B, and on fp16 MMAs
    (fp16 or fp32 accumulators) those whose V of int8 data is exact in fp16."""
    if dtype != "int8":
        return TILE_SIZES
    return INT8_TILE_SIZES if accum == "int32" else INT8_FP16_TILE_SIZES


def resolve_output(dtype: str, out: str) -> str:
    """out checked against dtype's OUTPUTS; "" is the dtype's default."""
    if not out:
        return OUTPUTS[dtype][0]
    if out not in OUTPUTS[dtype]:
        raise WinoError(f"output dtype {out!r} is not available for {dtype} inputs: choose one "
                        f"of {', '.join(OUTPUTS[dtype])}")
    return out


def epilogue_dtype(dtype: str, out: str) -> str:
    """Type of bias and residual: y's, except fp32 for int8 inputs (added in integer units,
    before the division by y_scale)."""
    return "fp32" if dtype == "int8" else out


def forward_inputs(epilogue: tuple[str, ...], dtype: str, out: str) -> tuple[str, ...]:
    """Tensors the forward call reads besides x and the weights, in parameter order."""
    return (*(op for op in EPILOGUE_INPUTS if op in epilogue),
            *((OUTPUT_SCALE,) if dtype == "int8" and out != "fp32" else ()))


def parse_epilogue(text: str) -> tuple[str, ...]:
    """'bias,relu' (as --epilogue takes it) -> ('bias', 'relu'); '' or 'none' -> ()."""
    if text.strip() in ("", "none"):
        return ()
    return canonical_epilogue(tuple(part.strip() for part in text.split(",")))


def epilogue_text(ops: tuple[str, ...]) -> str:
    """Inverse of parse_epilogue: ('bias', 'relu') -> 'bias,relu', () -> '' (how records,
    manifests and results spell an epilogue)."""
    return ",".join(ops)


def canonical_epilogue(ops) -> tuple[str, ...]:
    """The ops in application order; unknown or repeated ops are refused."""
    if isinstance(ops, str) or not all(isinstance(op, str) for op in ops):
        raise WinoError(f"epilogue {ops!r} must be a sequence of op names from {EPILOGUE_OPS}")
    unknown = [op for op in ops if op not in EPILOGUE_OPS]
    if unknown:
        raise WinoError(f"unknown epilogue op(s) {unknown}: choose from {', '.join(EPILOGUE_OPS)} "
                        "(e.g. --epilogue bias,relu)")
    if len(set(ops)) != len(ops):
        raise WinoError(f"epilogue {list(ops)} names an op twice")
    return tuple(op for op in EPILOGUE_OPS if op in ops)
