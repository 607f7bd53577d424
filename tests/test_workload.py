"""Conv2dWorkload: validation messages and derived values (TVM-free)."""

from __future__ import annotations

import math

import pytest

from wino_tvm.errors import WinoError
from wino_tvm.math.tolerance import within_bar
from wino_tvm.workload import Conv2dWorkload, parse_epilogue


def make(**overrides) -> Conv2dWorkload:
    args = {"n": 1, "h": 8, "w": 8, "c": 16, "k": 16}
    args.update(overrides)
    return Conv2dWorkload(**args)


# ---------------------------------------------------------------------------- validation


@pytest.mark.parametrize("field", ["n", "h", "w", "c", "k"])
@pytest.mark.parametrize("value", [0, -1, -64])
def test_non_positive_size_is_rejected(field, value):
    with pytest.raises(WinoError, match=rf"{field.upper()}={value} must be a positive integer"):
        make(**{field: value})


@pytest.mark.parametrize("field", ["n", "h", "w", "c", "k"])
@pytest.mark.parametrize("value", [2.0, 1.5, "4", None])
def test_non_integer_size_is_rejected(field, value):
    with pytest.raises(WinoError) as info:
        make(**{field: value})
    message = str(info.value)
    assert f"{field.upper()}={value!r}" in message
    assert "must be a positive integer" in message


@pytest.mark.parametrize(
    ("kernel", "stride", "padding"),
    [(5, 1, 1), (1, 1, 1), (3, 2, 1), (3, 1, 0), (3, 1, 2), (7, 2, 3)],
)
def test_only_3x3_stride1_pad1_is_supported(kernel, stride, padding):
    with pytest.raises(WinoError) as info:
        make(kernel=kernel, stride=stride, padding=padding)
    message = str(info.value)
    assert f"kernel={kernel}, stride={stride}, padding={padding} is not supported" in message
    assert "only 3x3 convolutions with stride 1 and padding 1" in message


@pytest.mark.parametrize("dtype", ["fp64", "float16", "bf16", "int4", ""])
def test_unknown_dtype(dtype):
    with pytest.raises(WinoError, match=r"unknown dtype .*: choose one of fp32, fp16, int8"):
        make(dtype=dtype)


@pytest.mark.parametrize("m", [0, 1, 3, 5, 8])
def test_unsupported_tile_size(m):
    with pytest.raises(WinoError) as info:
        make(m=m)
    assert str(info.value) == f"Winograd tile size m={m} is not supported: choose m in [2, 4, 6]"


@pytest.mark.parametrize(
    ("dtype", "accum", "choices"),
    [
        ("fp32", "fp16", "fp32"),
        ("fp32", "int32", "fp32"),
        ("fp16", "int32", "fp32, fp16"),
        ("fp16", "fp64", "fp32, fp16"),
        ("int8", "int16", "int32, fp16, fp32"),
    ],
)
def test_accumulator_not_available_for_dtype(dtype, accum, choices):
    with pytest.raises(WinoError) as info:
        make(dtype=dtype, accum=accum)
    assert str(info.value) == (
        f"accumulator {accum!r} is not available for {dtype}: choose one of {choices}"
    )


@pytest.mark.parametrize("accum", ["fp16", "fp32"])
def test_int8_on_fp16_mmas_takes_m2_only(accum):
    """int8 on fp16 tensor cores (the lane kernel's fp16 sums, the F(2, 3) kernel's fp32 ones):
    F(2x2)'s and F(2, 3)'s V of int8 data is exact in fp16, F(4x4)'s is not."""
    assert make(dtype="int8", accum=accum, m=2).accum == accum
    with pytest.raises(WinoError, match=f"int8 with {accum} accumulators runs on fp16 MMAs and "
                                        "takes m=2 only, not m=4"):
        make(dtype="int8", accum=accum, m=4)


@pytest.mark.parametrize(
    ("dtype", "default"), [("fp32", "fp32"), ("fp16", "fp32"), ("int8", "int32")]
)
def test_default_accumulator(dtype, default):
    assert make(dtype=dtype).accum == default


@pytest.mark.parametrize(
    ("dtype", "accum", "m"),
    [
        (dtype, accum, m)
        for dtype, accum in [
            ("fp32", "fp32"),
            ("fp16", "fp32"),
            ("fp16", "fp16"),
            ("int8", "int32"),
        ]
        for m in (2, 4, 6)
        if (dtype, m) != ("int8", 6)  # refused: test_int8_m6_refused
    ],
)
def test_valid_combinations_build(dtype, accum, m):
    wl = make(dtype=dtype, accum=accum, m=m)
    assert (wl.dtype, wl.accum, wl.m) == (dtype, accum, m)


@pytest.mark.parametrize(("dtype", "out", "epilogue_dtype", "reads"), [
    ("fp32", "", "fp32", ()),
    ("fp16", "", "fp16", ()),
    ("int8", "", "fp32", ()),
    # int8 sums exceed fp16's range: fp16 and int8 outputs are divided by a run-time y_scale,
    # after bias and residual (fp32, integer units).
    ("int8", "fp16", "fp32", ("y_scale",)),
    ("int8", "int8", "fp32", ("y_scale",)),
])
def test_output_dtypes(dtype, out, epilogue_dtype, reads):
    wl = make(dtype=dtype, out=out, m=2)
    assert wl.out == (out or {"fp32": "fp32", "fp16": "fp16", "int8": "fp32"}[dtype])
    assert wl.epilogue_dtype == epilogue_dtype
    assert wl.forward_inputs == reads
    with_epilogue = make(dtype=dtype, out=out, m=2, epilogue=("relu", "residual", "bias"))
    assert with_epilogue.forward_inputs == ("bias", "residual", *reads)


@pytest.mark.parametrize(("dtype", "out", "choices"), [
    ("fp16", "int8", "fp16"), ("fp16", "fp32", "fp16"), ("int8", "int32", "fp32, fp16, int8"),
])
def test_output_dtype_not_available(dtype, out, choices):
    with pytest.raises(WinoError) as info:
        make(dtype=dtype, out=out, m=2)
    assert str(info.value) == (
        f"output dtype {out!r} is not available for {dtype} inputs: choose one of {choices}"
    )


def test_defaults():
    wl = make()
    assert (wl.dtype, wl.m, wl.accum) == ("fp16", 2, "fp32")
    assert (wl.kernel, wl.stride, wl.padding) == (3, 1, 1)


@pytest.mark.parametrize("dtype", ["fp16", "int8"])
def test_default_workload_is_within_its_accuracy_bar(dtype):
    """What a user gets without choosing m or an accumulator is accurate (math/tolerance.py);
    m=4 is beyond the bar for both dtypes, so it stays an explicit choice."""
    assert within_bar(make(dtype=dtype))
    assert not within_bar(make(dtype=dtype, m=4))


def test_workload_is_frozen_and_hashable():
    wl = make()
    with pytest.raises(AttributeError):
        wl.n = 2  # type: ignore[misc]
    assert {wl: 1}[make()] == 1


# ---------------------------------------------------------------------------- parse_shape


@pytest.mark.parametrize(
    ("text", "dims"),
    [
        ("1,224,224,64,64", (1, 224, 224, 64, 64)),
        ("32x56x56x64x128", (32, 56, 56, 64, 128)),
        (" 2, 7 ,9,16,8", (2, 7, 9, 16, 8)),
    ],
)
def test_parse_shape(text, dims):
    wl = Conv2dWorkload.parse_shape(text, dtype="int8", m=2)
    assert (wl.n, wl.h, wl.w, wl.c, wl.k) == dims
    assert (wl.dtype, wl.m, wl.accum) == ("int8", 2, "int32")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1,224,224,64",
        "1,224,224,64,64,1",
        "1,224,224,64,a",
        "1,,224,64,64",
        "1.5,2,3,4,5",
        "1;2;3;4;5",
        "NHWCK",
    ],
)
def test_parse_shape_rejects_bad_text(text):
    with pytest.raises(WinoError) as info:
        Conv2dWorkload.parse_shape(text)
    assert str(info.value) == (
        f"--shape {text!r} must be five integers N,H,W,C,K (e.g. 1,224,224,64,64)"
    )
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_parse_shape_rejects_non_positive_values():
    with pytest.raises(WinoError, match=r"H=0 must be a positive integer"):
        Conv2dWorkload.parse_shape("1,0,224,64,64")


def test_parse_shape_passes_on_validation_of_options():
    with pytest.raises(WinoError, match=r"m=3 is not supported"):
        Conv2dWorkload.parse_shape("1,8,8,8,8", m=3)


# ---------------------------------------------------------------------------- derived values


@pytest.mark.parametrize(("m", "alpha"), [(2, 4), (4, 6), (6, 8)])
def test_alpha(m, alpha):
    assert make(m=m).alpha == alpha


@pytest.mark.parametrize(
    ("n", "h", "w", "m", "tiles_h", "tiles_w"),
    [
        (1, 224, 224, 4, 56, 56),  # exact multiples
        (1, 224, 224, 6, 38, 38),  # 224 = 37 * 6 + 2: one partial tile per edge
        (2, 7, 9, 2, 4, 5),
        (2, 7, 9, 4, 2, 3),
        (3, 5, 6, 6, 1, 1),
        (1, 1, 1, 4, 1, 1),  # a single pixel still needs one tile
        (4, 13, 8, 4, 4, 2),
    ],
)
def test_tiles(n, h, w, m, tiles_h, tiles_w):
    wl = make(n=n, h=h, w=w, m=m)
    assert (wl.tiles_h, wl.tiles_w) == (tiles_h, tiles_w)
    assert wl.tiles_h == math.ceil(h / m) and wl.tiles_w == math.ceil(w / m)
    assert wl.tiles_per_image == tiles_h * tiles_w
    assert wl.ntiles == n * tiles_h * tiles_w


@pytest.mark.parametrize(
    ("ntiles_args", "multiple", "padded"),
    [
        ((1, 224, 224, 4), 16, 3136),  # 3136 = 196 * 16 already
        ((2, 7, 9, 2), 16, 48),  # 2 images of 20 tiles, back to back: 40 -> 48
        ((2, 7, 9, 2), 32, 64),
        ((2, 7, 9, 2), 1, 40),
        ((2, 7, 9, 2), 20, 40),
        ((32, 14, 14, 2), 32, 1568),  # 49 tiles per image, 32 images: no padding at all
        ((1, 1, 1, 4), 8, 8),
    ],
)
def test_ntiles_padded_across_images(ntiles_args, multiple, padded):
    n, h, w, m = ntiles_args
    wl = make(n=n, h=h, w=w, m=m)
    assert wl.image_tile_stride(multiple) == wl.tiles_per_image
    assert wl.ntiles_padded(multiple) == padded
    assert padded % multiple == 0 and wl.ntiles <= padded < wl.ntiles + multiple
    assert wl.tile_rows(multiple) == list(range(wl.ntiles))


@pytest.mark.parametrize(
    ("ntiles_args", "multiple", "stride", "padded"),
    [
        ((2, 11, 13, 4), 16, 16, 32),  # 3 x 4 tiles: tiles_w 4 divides 16, 12 and 16 do not
        ((3, 10, 16, 2), 32, 64, 192),  # 5 x 8 tiles
    ],
)
def test_ntiles_padded_per_image_where_tvm_needs_it(ntiles_args, multiple, stride, padded):
    n, h, w, m = ntiles_args
    wl = make(n=n, h=h, w=w, m=m)
    assert wl.image_tile_stride(multiple) == stride
    assert wl.ntiles_padded(multiple) == padded
    rows = wl.tile_rows(multiple)
    assert len(rows) == wl.ntiles and rows[wl.tiles_per_image] == stride  # next image, next block


def test_ntiles_padded_refuses_a_bad_multiple():
    with pytest.raises(WinoError, match="tile multiple 0 must be positive"):
        make().ntiles_padded(0)


def test_flops_is_direct_convolution_count():
    # 2 * N*H*W*C*K*9, independent of m (the effective-TFLOP/s convention).
    for m in (2, 4, 6):
        wl = Conv2dWorkload(1, 224, 224, 64, 64, m=m)
        assert wl.flops == 2 * 224 * 224 * 64 * 64 * 9 == 3_699_376_128
    assert Conv2dWorkload(32, 56, 56, 64, 128).flops == 2 * 32 * 56 * 56 * 64 * 128 * 9


def test_key_and_shape_dict():
    wl = Conv2dWorkload(2, 7, 9, 16, 8, dtype="int8", m=2)
    assert wl.key == "N2_H7_W9_C16_K8"
    assert wl.shape_dict() == {"N": 2, "H": 7, "W": 9, "C": 16, "K": 8}
    # The key names the shape only: dtype and m go elsewhere in a record.
    assert Conv2dWorkload(2, 7, 9, 16, 8, dtype="fp32", m=6).key == wl.key


def test_int8_m6_refused():
    with pytest.raises(WinoError, match="int8 supports m in \\[2, 4\\] only"):
        make(dtype="int8", m=6)


@pytest.mark.parametrize(("text", "ops"), [
    ("", ()),
    ("none", ()),
    ("bias", ("bias",)),
    ("relu,bias", ("bias", "relu")),  # application order, whatever the spelling
    ("relu, residual ,bias", ("bias", "residual", "relu")),
])
def test_parse_epilogue(text, ops):
    assert parse_epilogue(text) == ops
    wl = Conv2dWorkload(1, 8, 8, 16, 16, epilogue=ops)
    assert wl.epilogue == ops


@pytest.mark.parametrize(("text", "message"), [
    ("gelu", r"unknown epilogue op\(s\) \['gelu'\]: choose from bias, residual, relu"),
    ("bias,bias", "names an op twice"),
    ("bias,", r"unknown epilogue op\(s\) \[''\]"),
])
def test_parse_epilogue_rejects(text, message):
    with pytest.raises(WinoError, match=message):
        parse_epilogue(text)


def test_epilogue_must_be_a_sequence_of_names():
    with pytest.raises(WinoError, match="sequence of op names"):
        Conv2dWorkload(1, 8, 8, 16, 16, epilogue="bias")
    assert Conv2dWorkload(1, 8, 8, 16, 16, epilogue=["relu", "bias"]).epilogue == ("bias", "relu")
