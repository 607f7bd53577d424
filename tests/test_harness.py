"""Rendering and building of the standalone benchmark program (templates/harness.cu.tpl)."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from toolchain import (
    gpu_arch,
    needs_nvcc,
    on_gpu,
)

from wino_tvm import harness
from wino_tvm.errors import WinoError
from wino_tvm.harness import HarnessSpec, Launch, Workspace, render_harness, write_artifact
from wino_tvm.runner import compile_check, compile_program, run_program

N, H, W, C, K = 2, 8, 8, 16, 32
# What TVM's CUDA preamble does that could bite the harness code after it.
TVM_LIKE_PREAMBLE = """
#include <cuda_fp16.h>
__device__ half max(half a, half b) { return __hgt(a, b) ? a : b; }
#define uint unsigned int
#define uchar unsigned char
#define ushort unsigned short
"""
# (kernel element type, accumulator type, output type, element -> accumulator)
KERNEL_TYPES = {
    "fp16": ("half", "float", "half", "__half2float"),
    "int8": ("signed char", "int", "float", "(int)"),
}


SCALED_STORES = {  # int8 inputs' scaled outputs, as OTrans writes them: (y's type, value)
    "fp16": ("half", "__float2half((float)acc / y_scale[0])"),
    "int8": ("signed char",
             "(signed char)fminf(fmaxf(nearbyintf((float)acc / y_scale[0]), -127.f), 127.f)"),
}


def kernels_source(dtype: str, scaled_out: str = "", blocks: int = 16) -> str:
    """A weight copy into a workspace and a direct convolution over `blocks` blocks of 256
    threads (a persistent launch's any grid computes them all), standing in for TVM's kernels;
    scaled_out: int8 inputs' fp16 or int8 y, divided by y_scale."""
    in_t, acc_t, out_t, conv = KERNEL_TYPES[dtype]
    scale_param, store = "", f"({out_t})acc"
    if scaled_out:
        out_t, store = SCALED_STORES[scaled_out]
        scale_param = "float* __restrict__ y_scale, "
    return TVM_LIKE_PREAMBLE + f"""
extern "C" __global__ void copy_weights({in_t}* __restrict__ w, {in_t}* __restrict__ wt) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < {9 * C * K}) wt[i] = w[i];
}}
extern "C" __global__ void direct_conv({in_t}* __restrict__ x, {in_t}* __restrict__ wt,
                                       {scale_param}{out_t}* __restrict__ y) {{
  for (int block = blockIdx.x; block < {blocks}; block += gridDim.x) {{
  int idx = block * blockDim.x + threadIdx.x;
  if (idx >= {N * H * W * K}) return;
  int k = idx % {K}, t = idx / {K}, j = t % {W};
  t /= {W};
  int i = t % {H}, n = t / {H};
  {acc_t} acc = 0;
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s) {{
      int ii = i + r - 1, jj = j + s - 1;
      if (ii < 0 || ii >= {H} || jj < 0 || jj >= {W}) continue;
      for (int c = 0; c < {C}; ++c)
        acc += {conv}(x[((n * {H} + ii) * {W} + jj) * {C} + c]) *
               {conv}(wt[((r * 3 + s) * {C} + c) * {K} + k]);
    }}
  y[idx] = {store};
  }}
}}
"""


def make_spec(dtype: str = "fp16", shared_bytes: int = 0, out: str = "", grid: int = 16,
              persistent: bool = False, early: bool = False, **changes) -> HarnessSpec:
    """The direct convolution as a spec; int8 with out fp16 or int8 divides by y_scale;
    persistent: the forward launch gets the blocks that stay resident (at most grid); early: it
    runs again, launched early (the same y: the second waits for nothing it reads)."""
    in_t = KERNEL_TYPES[dtype][0]
    scaled = dtype == "int8" and out in ("fp16", "int8")
    # Requantising rounds to the int8 step: about 1.3% of rms(y) (wino_tvm.tolerance).
    tolerance = 2.5e-2 if out == "int8" else 1e-2 if "fp16" in (dtype, out) else 1e-6
    args = ("x", "wt", "y_scale", "y") if scaled else ("x", "wt", "y")
    spec = HarnessSpec(
        n=N, h=H, w=W, c=C, k=K, dtype=dtype, m=4, fusion="none", config_name="direct",
        commit="abc123", tolerance=tolerance,
        kernels_source=kernels_source(dtype, out if scaled else "", grid),
        workspaces=(Workspace("wt", in_t, 9 * C * K),),
        weight_launches=(Launch("copy_weights", (18, 1, 1), (256, 1, 1), 0, ("w", "wt")),),
        forward_launches=(Launch("direct_conv", (grid, 1, 1), (256, 1, 1), shared_bytes, args,
                                 persistent),),
        out=out,
    )
    if early:
        first = spec.forward_launches[0]
        spec = dataclasses.replace(
            spec, forward_launches=(first, dataclasses.replace(first, early=True)))
    return dataclasses.replace(spec, **changes)


EXPECTED_PLACEHOLDERS = {
    "KERNELS", "IN_T", "OUT_T", "N", "H", "W", "C", "K", "M", "TOLERANCE",
    "DTYPE_JSON", "FUSION_JSON", "CONFIG_JSON", "COMMIT_JSON",
    "WORKSPACE_DECLS", "WORKSPACE_ALLOC", "WORKSPACE_FREE", "KERNEL_ATTRS",
    "WEIGHT_TRANSFORM_BODY", "FORWARD_BODY",
    "EPILOGUE_BIAS", "EPILOGUE_RESIDUAL", "EPILOGUE_RELU", "EPILOGUE_SCALE", "EPILOGUE_JSON",
    "EPI_T", "SCALED_OUT", "QUANT_POISON", "OUT_JSON",
}


def test_template_placeholders() -> None:
    text = harness.TEMPLATE_PATH.read_text()
    assert set(re.findall(r"\{\{([A-Z0-9_]+)\}\}", text)) == EXPECTED_PLACEHOLDERS


@pytest.mark.parametrize(("dtype", "out", "types"), [
    ("fp16", "", ("half", "half", "half")),
    ("int8", "", ("int8_t", "float", "float")),
    # int8 inputs: bias and residual in float, added before the division by y_scale.
    ("int8", "fp16", ("int8_t", "half", "float")),
    ("int8", "int8", ("int8_t", "int8_t", "float")),
])
def test_render_fills_everything(dtype: str, out: str, types: tuple[str, str, str]) -> None:
    spec = make_spec(dtype, out=out)
    text = render_harness(spec)
    assert "{{" not in text
    for name, c_type in zip(("IN_T", "OUT_T", "EPI_T"), types, strict=True):
        assert f"typedef {c_type} {name};" in text
    scaled = dtype == "int8" and out != ""
    assert f"static constexpr bool kScaledOut = {str(scaled).lower()};" in text
    assert spec.forward_inputs == (("y_scale",) if scaled else ())
    assert f'kOutJson = "\\"{out or ("fp16" if dtype == "fp16" else "fp32")}\\"";' in text
    for name, value in [("kN", N), ("kH", H), ("kW", W), ("kC", C), ("kK", K), ("kM", 4)]:
        assert re.search(rf"constexpr (long long|int) {name} = {value};", text)
    assert f'kDtypeJson = "\\"{dtype}\\"";' in text
    assert "extern \"C\" __global__ void direct_conv(" in text


@pytest.mark.parametrize(("epilogue", "flags"), [
    ((), (False, False, False)),
    (("bias", "relu"), (True, False, True)),
    (("bias", "residual", "relu"), (True, True, True)),
])
def test_epilogue_flags_and_scale(epilogue: tuple, flags: tuple) -> None:
    text = harness.render_harness(make_spec(epilogue=epilogue))
    for name, on in zip(("kBias", "kResidual", "kRelu"), flags, strict=True):
        assert f"static constexpr bool {name} = {str(on).lower()};" in text
    assert f'kEpilogueJson = "\\"{",".join(epilogue)}\\""' in text
    # fp16 data in [-1, 1], C=16: the outputs' standard deviation is sqrt(9*16)/3 = 4.
    assert "static constexpr float kEpilogueScale = 4.000000000e+00f;" in text
    assert harness.epilogue_scale("int8", 64) == pytest.approx(127**2 * 8)


def test_launch_text() -> None:
    text = render_harness(make_spec())
    assert (
        "  direct_conv<<<dim3(16, 1, 1), dim3(256, 1, 1), 0, stream>>>(x, wt, y);\n"
        '  WB_CHECK_LAUNCH("direct_conv");\n'
    ) in text
    body = text.split("static void weight_transform(")[1].split("\n}\n")[0]
    assert "copy_weights<<<dim3(18, 1, 1), dim3(256, 1, 1), 0, stream>>>(w, wt);" in body


def test_helper_argument_is_called_and_checked() -> None:
    # e.g. the lane kernel's TMA tensor map of x, built on the host per call
    source = kernels_source("fp16") + ("\nstatic int x_map(const void* x, cudaError_t* error) "
                                       "{ return x != nullptr; }\n")
    launch = Launch("direct_conv", (16, 1, 1), (256, 1, 1), 0, ("x_map(x)", "x", "wt", "y"))
    text = render_harness(make_spec(kernels_source=source, forward_launches=(launch,)))
    assert ("  cudaError_t wb_direct_conv_arg0_error = cudaSuccess;\n"
            "  const auto wb_direct_conv_arg0 = x_map(x, &wb_direct_conv_arg0_error);\n"
            "  WB_CHECK(wb_direct_conv_arg0_error);\n"
            "  direct_conv<<<dim3(16, 1, 1), dim3(256, 1, 1), 0, stream>>>"
            "(wb_direct_conv_arg0, x, wt, y);") in text


def test_persistent_launch_text() -> None:
    text = render_harness(make_spec(persistent=True))
    body = text.split("static void forward(")[1].split("\n}\n")[0]
    # Queried once per process, after wb_configure_kernels raised the shared memory limit.
    assert "static std::atomic<int> wb_grid_direct_conv{0};" in body
    assert ("WB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&wb_per_sm, direct_conv, "
            "256, 0));") in body
    assert "wb_resident < 16 ? wb_resident : 16" in body
    assert ("direct_conv<<<dim3(wb_grid_direct_conv.load(std::memory_order_relaxed), 1, 1), "
            "dim3(256, 1, 1), 0, stream>>>(x, wt, y);") in body
    assert "wb_grid" not in render_harness(make_spec())


def test_early_launch_text() -> None:
    body = render_harness(make_spec(early=True)).split("static void forward(")[1]
    body = body.split("\n}\n")[0]
    plain, early = body.split("WB_CHECK_LAUNCH(\"direct_conv\");")
    assert "direct_conv<<<dim3(16, 1, 1), dim3(256, 1, 1), 0, stream>>>(x, wt, y);" in plain
    assert ("wb_early[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;\n"
            "    wb_early[0].val.programmaticStreamSerializationAllowed = 1;\n"
            "    cudaLaunchConfig_t wb_config = {dim3(16, 1, 1), dim3(256, 1, 1), 0, stream, "
            "wb_early, 1};\n"
            "    WB_CHECK(cudaLaunchKernelEx(&wb_config, direct_conv, x, wt, y));") in early


def test_workspace_text() -> None:
    text = render_harness(make_spec())
    assert "static half* wt = nullptr;" in text
    assert "WB_CHECK(cudaMalloc(&wt, sizeof(half) * 4608ull));" in text
    assert "WB_CHECK(cudaFree(wt));" in text


@pytest.mark.parametrize(
    ("shared", "emitted"), [(0, False), (48 * 1024, False), (48 * 1024 + 16, True)]
)
def test_shared_attribute_only_above_48k(shared: int, emitted: bool) -> None:
    text = render_harness(make_spec(shared_bytes=shared))
    attr = (
        "WB_CHECK(cudaFuncSetAttribute(direct_conv, cudaFuncAttributeMaxDynamicSharedMemorySize, "
        f"{shared}));"
    )
    assert (attr in text) == emitted
    assert text.count("cudaFuncAttributeMaxDynamicSharedMemorySize") == int(emitted)


def test_shared_attribute_once_per_kernel_with_largest_size() -> None:
    launch = Launch("direct_conv", (16, 1, 1), (256, 1, 1), 64 * 1024, ("x", "wt", "y"))
    spec = make_spec(forward_launches=(launch, dataclasses.replace(launch, shared_bytes=96 * 1024)))
    text = render_harness(spec)
    assert text.count("cudaFuncAttributeMaxDynamicSharedMemorySize") == 1
    assert "MaxDynamicSharedMemorySize, 98304));" in text


def test_strings_are_json_inside_c_literals() -> None:
    name = 'cfg "quoted" back\\slash é\n'
    text = render_harness(make_spec(config_name=name))
    literal = re.search(r"kConfigJson = (.*);\n", text).group(1)
    # For these escapes (\\ and \") C and Python string literals agree.
    assert json.loads(ast.literal_eval(literal)) == name


def test_fill_template_rejects_unfilled_and_unknown() -> None:
    with pytest.raises(WinoError, match=r"unfilled \['B'\]"):
        harness.fill_template("{{A}} {{B}}", {"A": "1"})
    with pytest.raises(WinoError, match=r"unknown \['C'\]"):
        harness.fill_template("{{A}}", {"A": "1", "C": "2"})
    # Values are not rescanned, so kernel text that looks like a placeholder survives.
    assert harness.fill_template("{{A}}", {"A": "{{B}}"}) == "{{B}}"


def test_launch_lists_become_tuples() -> None:
    launch = Launch("direct_conv", [1, 2, 3], [32, 1, 1], 0, ["x"])
    assert launch.grid == (1, 2, 3) and launch.args == ("x",)
    hash(launch)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dtype": "bf16"}, "unknown dtype"),
        ({"h": 0}, "h must be a positive int"),
        ({"c": 3.0}, "c must be a positive int"),
        ({"tolerance": -1.0}, "tolerance"),
        ({"tolerance": float("nan")}, "tolerance"),
        ({"forward_launches": ()}, "forward_launches is empty"),
        (
            {"forward_launches": (
                Launch("direct_conv", (1, 1, 1), (1, 1, 1), 0, ("x", "wt", "y"), persistent=True),
                Launch("direct_conv", (2, 1, 1), (1, 1, 1), 0, ("x", "wt", "y"), persistent=True))},
            "launches a persistent kernel with two shapes",
        ),
        (
            # an early first launch would overlap the caller's kernel that wrote x
            {"forward_launches": (Launch("direct_conv", (1, 1, 1), (1, 1, 1), 0,
                                         ("x", "wt", "y"), early=True),)},
            "launch of direct_conv is early but first",
        ),
        ({"workspaces": ()}, r"unknown buffers \['wt'\]"),
        ({"epilogue": ("gelu",)}, r"unknown epilogue op\(s\) \['gelu'\]"),
        ({"out": "int8"}, r"output dtype 'int8' is not available for fp16"),
        (
            # y_scale is a forward buffer only for an int8 y.
            {"forward_launches": (Launch("direct_conv", (1, 1, 1), (1, 1, 1), 0,
                                         ("x", "y_scale")),)},
            r"unknown buffers \['y_scale'\]",
        ),
        (
            # bias is a forward buffer only when the epilogue reads it.
            {"forward_launches": (Launch("direct_conv", (1, 1, 1), (1, 1, 1), 0, ("x", "bias")),)},
            r"unknown buffers \['bias'\]",
        ),
        ({"workspaces": (Workspace("wt", "half", 1), Workspace("wt", "half", 1))}, "duplicate"),
        (
            {"forward_launches": (Launch("nope", (1, 1, 1), (1, 1, 1), 0, ("x",)),)},
            "nope, not defined in kernels_source",
        ),
        (
            {"weight_launches": (Launch("copy_weights", (1, 1, 1), (1, 1, 1), 0, ("x", "wt")),)},
            r"weight_transform launch of copy_weights uses unknown buffers \['x'\]",
        ),
        (
            # a host helper applied to a buffer (a TMA tensor map of x) must be defined
            {"forward_launches": (Launch("direct_conv", (1, 1, 1), (1, 1, 1), 0,
                                         ("x_map(x)", "x", "wt", "y")),)},
            "helper x_map is not defined in kernels_source",
        ),
        (
            {"forward_launches": (Launch("direct_conv", (1, 1, 1), (1, 1, 1), 0,
                                         ("x + 1", "wt", "y")),)},
            r"argument 'x \+ 1' is neither a buffer nor helper\(buffer\)",
        ),
        (
            {"forward_launches": (Launch("direct_conv", (1, 1, 1), (1, 1, 1), 0,
                                         ("copy_weights(bias)", "x", "wt", "y")),)},
            r"unknown buffers \['copy_weights\(bias\)'\]",
        ),
    ],
)
def test_bad_spec(changes: dict, message: str) -> None:
    spec = make_spec()
    with pytest.raises(WinoError, match=message):
        dataclasses.replace(spec, **changes)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Launch("k", (1, 1, 1), (64, 32, 1), 0, ()), "2048 threads"),
        (lambda: Launch("k", (0, 1, 1), (1, 1, 1), 0, ()), "grid of k"),
        (lambda: Launch("k", (1, 1), (1, 1, 1), 0, ()), "grid of k"),
        (lambda: Launch("k", (1, 1, 1), (1, 1, 1), 228 * 1024, ()), "shared_bytes"),
        (lambda: Launch("k-1", (1, 1, 1), (1, 1, 1), 0, ()), "not a C identifier"),
        (lambda: Workspace("x", "half", 1), "reserved"),
        (lambda: Workspace("wb_tmp", "half", 1), "reserved"),
        (lambda: Workspace("t", "half*", 1), "bad C type"),
        (lambda: Workspace("t", "half", 0), "count"),
    ],
)
def test_bad_launch_or_workspace(make, message: str) -> None:
    with pytest.raises(WinoError, match=message):
        make()


def test_write_artifact(tmp_path: Path) -> None:
    spec = make_spec()
    program = write_artifact(spec, tmp_path / "a", extra_files={"kernels.cu": "// raw"})
    assert program == tmp_path / "a" / "program.cu"
    assert program.read_text() == render_harness(spec)
    assert (tmp_path / "a" / "kernels.cu").read_text() == "// raw"
    record = json.loads((tmp_path / "a" / "harness_spec.json").read_text())
    assert "kernels_source" not in record
    assert record["forward_launches"][0]["args"] == ["x", "wt", "y"]
    fields = dict(
        record,
        kernels_source=spec.kernels_source,
        workspaces=[Workspace(**ws) for ws in record["workspaces"]],
        weight_launches=[Launch(**la) for la in record["weight_launches"]],
        forward_launches=[Launch(**la) for la in record["forward_launches"]],
    )
    assert HarnessSpec(**fields) == spec


@pytest.mark.parametrize("name", ["program.cu", "../x.cu", "sub/x.cu", ".."])
def test_write_artifact_rejects_bad_extra_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(WinoError, match="plain file name"):
        write_artifact(make_spec(), tmp_path / "a", extra_files={name: ""})
    assert not (tmp_path / "a").exists()


# ---- building with nvcc (no GPU needed) ------------------------------------------------------

# Each arch and each dtype once, int8 also with an int8 y, fp16 also launched persistent and
# then again early; the harness's own code must be warning-free.
# name -> (dtype, out, arch, persistent and early)
BUILDS = {"fp16": ("fp16", "", "sm_80", False), "int8": ("int8", "", "sm_90", False),
          "int8_out": ("int8", "int8", "sm_90", False),
          "int8_fp16_out": ("int8", "fp16", "sm_90", False),
          "fp16_persistent_early": ("fp16", "", "sm_90", True)}
STRICT = ("-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """dtype -> executable, built in parallel (large shared memory exercises the attribute)."""
    root = tmp_path_factory.mktemp("builds")
    dirs = {}
    for name, (dtype, out, _, persistent) in BUILDS.items():
        dirs[name] = root / name
        write_artifact(make_spec(dtype, shared_bytes=64 * 1024, out=out, persistent=persistent,
                                 early=persistent), dirs[name])
    with ThreadPoolExecutor(len(BUILDS)) as pool:
        futures = {n: pool.submit(compile_program, dirs[n], BUILDS[n][2], STRICT) for n in BUILDS}
        return {n: f.result() for n, f in futures.items()}


@pytest.mark.nvcc
@needs_nvcc
@pytest.mark.parametrize("name", sorted(BUILDS))
def test_program_builds(built: dict[str, Path], name: str) -> None:
    assert built[name].is_file() and os.access(built[name], os.X_OK)


@pytest.mark.nvcc
@needs_nvcc
def test_program_rejects_bad_arguments(built: dict[str, Path]) -> None:
    # Arguments are parsed before any CUDA call, so this runs without a GPU.
    with pytest.raises(WinoError, match="status 2:\nerror: unknown argument: --bogus"):
        run_program(built["fp16"], ["--bogus"], timeout_s=30)
    with pytest.raises(WinoError, match="bad value: 0"):
        run_program(built["fp16"], ["--iters", "0"], timeout_s=30)


@pytest.mark.nvcc
@needs_nvcc
def test_compile_check_reports_resources(tmp_path: Path) -> None:
    write_artifact(make_spec("int8"), tmp_path)
    report = compile_check(tmp_path, archs=("sm_90",))
    assert any("direct_conv" in line for line in report["sm_90"])
    assert any("registers" in line for line in report["sm_90"])


@pytest.mark.nvcc
@needs_nvcc
@pytest.mark.skipif(gpu_arch() is not None, reason="a GPU is present")
def test_program_fails_cleanly_without_gpu(built: dict[str, Path]) -> None:
    with pytest.raises(WinoError, match="CUDA error"):
        run_program(built["fp16"], ["--no-time"], timeout_s=60)


RECORD_KEYS = {
    "device", "sm", "workload", "dtype", "out", "m", "fusion", "config", "epilogue", "median_us",
    "min_us", "mean_us", "iters", "rotate", "tflops", "rel_l2_err", "max_abs_err", "nonfinite",
    "tolerance", "checks", "seed", "correct", "commit",
}


@on_gpu
@pytest.mark.parametrize("name", sorted(BUILDS))
def test_program_on_gpu(tmp_path: Path, name: str) -> None:
    arch = gpu_arch()
    dtype, out, _, persistent = BUILDS[name]
    write_artifact(make_spec(dtype, shared_bytes=64 * 1024, out=out, persistent=persistent,
                             early=persistent), tmp_path / "good")
    args = ["--checks", "2", "--warmup", "3", "--iters", "10"]
    record = run_program(compile_program(tmp_path / "good", arch), args, timeout_s=120)
    assert set(record) == RECORD_KEYS
    assert record["correct"] is True and record["nonfinite"] == 0
    assert record["workload"] == {"N": N, "H": H, "W": W, "C": C, "K": K}
    assert record["iters"] == 10 and record["rotate"] >= 1 and record["median_us"] > 0
    if name == "int8":
        assert record["rel_l2_err"] == 0.0  # integer sums are exact in float32 here
    if out == "int8":  # the rounding to the int8 step, and no more
        assert 1e-3 < record["rel_l2_err"] < 2.5e-2

    # Half the grid leaves half of y unwritten: the poison shows up as non-finite outputs.
    write_artifact(make_spec(dtype, out=out, grid=8), tmp_path / "bad")
    record = run_program(compile_program(tmp_path / "bad", arch), ["--no-time"], timeout_s=120)
    assert record["correct"] is False
    assert record["nonfinite"] == N * H * W * K // 2
    assert record["median_us"] is None and record["tflops"] is None
