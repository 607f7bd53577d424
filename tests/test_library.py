"""The shared-library build (templates/library.cu.tpl) and its ctypes wrapper."""

from __future__ import annotations

import ctypes
import dataclasses
import json
import re
from pathlib import Path

import pytest

from wino_tvm import library
from wino_tvm.errors import WinoError
from wino_tvm.harness import HarnessSpec, Launch, Workspace, write_artifact
from wino_tvm.library import (
    ABI_VERSION,
    KERNELS_FILE,
    LIBRARY_SOURCE_FILE,
    WinoLibrary,
    compile_library,
    load_spec,
    render_library,
)

# (kernel element type, accumulator, output type, element -> accumulator)
KERNEL_TYPES = {
    "fp16": ("half", "float", "half", "__half2float"),
    "int8": ("signed char", "int", "float", "(int)"),
}
SMALL = (2, 8, 8, 16, 32)
MIB2 = 2 << 20  # the library puts each workspace at a 2 MiB boundary


def direct_conv_source(dtype: str, n: int, h: int, w: int, c: int, k: int) -> str:
    """A weight copy into the workspace, an input copy into the scratch and a naive direct conv
    of that copy, standing in for TVM's kernels."""
    in_t, acc_t, out_t, conv = KERNEL_TYPES[dtype]
    return f"""
#include <cuda_fp16.h>
#define uint unsigned int
extern "C" __global__ void copy_weights({in_t}* __restrict__ w, {in_t}* __restrict__ wt) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < {9 * c * k}) wt[i] = w[i];
}}
extern "C" __global__ void copy_input({in_t}* __restrict__ x, {in_t}* __restrict__ xs) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < {n * h * w * c}) xs[i] = x[i];
}}
extern "C" __global__ void direct_conv({in_t}* __restrict__ x, {in_t}* __restrict__ wt,
                                       {out_t}* __restrict__ y) {{
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= {n * h * w * k}ll) return;
  int kk = idx % {k};
  long long t = idx / {k};
  int j = t % {w};
  t /= {w};
  int i = t % {h}, b = t / {h};
  {acc_t} acc = 0;
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s) {{
      int ii = i + r - 1, jj = j + s - 1;
      if (ii < 0 || ii >= {h} || jj < 0 || jj >= {w}) continue;
      for (int cc = 0; cc < {c}; ++cc)
        acc += {conv}(x[(((long long)b * {h} + ii) * {w} + jj) * {c} + cc]) *
               {conv}(wt[((r * 3 + s) * {c} + cc) * {k} + kk]);
    }}
  y[idx] = ({out_t})acc;
}}
"""


def direct_conv_spec(dtype: str = "fp16", shape: tuple[int, ...] = SMALL,
                     shared_bytes: int = 0) -> HarnessSpec:
    """A hand-made spec: copy_weights (weight transform) to the workspace's wt; copy_input and
    direct_conv (forward) through the scratch's xs, beside an unused odd-sized scratch buffer
    that exercises the 2 MiB packing."""
    n, h, w, c, k = shape
    in_t = KERNEL_TYPES[dtype][0]
    return HarnessSpec(
        n=n, h=h, w=w, c=c, k=k, dtype=dtype, m=4, fusion="none", config_name=f"direct-{dtype}",
        commit="abc123", tolerance=1e-2 if dtype == "fp16" else 1e-6,
        kernels_source=direct_conv_source(dtype, *shape),
        workspaces=(Workspace("xs", in_t, n * h * w * c), Workspace("wt", in_t, 9 * c * k),
                    Workspace("unused", "float", 3)),
        weight_launches=(Launch("copy_weights", (-(-9 * c * k // 256), 1, 1), (256, 1, 1), 0,
                                ("w", "wt")),),
        forward_launches=(Launch("copy_input", (-(-n * h * w * c // 256), 1, 1), (256, 1, 1), 0,
                                 ("x", "xs")),
                          Launch("direct_conv", (-(-n * h * w * k // 256), 1, 1), (256, 1, 1),
                                 shared_bytes, ("xs", "wt", "y"))),
    )


def write_direct_artifact(out_dir: Path, dtype: str = "fp16", shape: tuple[int, ...] = SMALL,
                          shared_bytes: int = 0) -> Path:
    """An artifact folder as artifact.py writes it (without the TVM prototype); returns it."""
    spec = direct_conv_spec(dtype, shape, shared_bytes)
    write_artifact(spec, out_dir, {KERNELS_FILE: spec.kernels_source})
    return out_dir


def expected_bytes(spec: HarnessSpec, names: tuple[str, ...]) -> int:
    """The named workspaces, each at a 2 MiB boundary, plus what aligning a 256-byte aligned
    base skips."""
    sizes = {"half": 2, "signed char": 1, "float": 4}
    end = 0
    for ws in spec.workspaces:
        if ws.name in names:
            end = -(-end // MIB2) * MIB2 + sizes[ws.c_type] * ws.count
    return end + MIB2 - 256


# ---- rendering ------------------------------------------------------------------------------
def test_render_has_kernels_abi_and_launches() -> None:
    spec = direct_conv_spec(shared_bytes=64 * 1024)
    source = render_library(spec)
    assert spec.kernels_source in source
    assert "{{" not in source
    for name in ("wino_workspace_bytes", "wino_scratch_bytes", "wino_describe",
                 "wino_error_string", "wino_weight_transform", "wino_forward"):
        assert re.search(rf"WB_API \w[\w ]*\*? ?{name}\(", source), name
    assert "typedef half IN_T;" in source and "typedef half OUT_T;" in source
    # What the weight launch writes goes into the workspace, the rest into the scratch, each
    # packed at 2 MiB boundaries of its buffer's aligned base.
    assert "kWorkspaceOffset0 = wb_align(0);  // wt" in source
    assert "kWorkspaceBytes = kWorkspaceOffset0 + sizeof(half) * 4608ull;" in source
    assert "kScratchOffset0 = wb_align(0);  // xs" in source
    assert "kScratchOffset1 = wb_align(kScratchOffset0 + sizeof(half) * 2048ull);  // unused" \
        in source
    assert "kScratchBytes = kScratchOffset1 + sizeof(float) * 3ull;" in source
    assert source.count("char* wb_base = wb_layout_base(wb_workspace);") == 2
    assert source.count("char* wb_scratch_base = wb_layout_base(wb_scratch);") == 1
    # Only the forward kernel is over 48 KB, so only it gets the attribute.
    assert source.count("cudaFuncSetAttribute") == 1
    assert "cudaFuncSetAttribute(direct_conv, cudaFuncAttributeMaxDynamicSharedMemorySize, " \
           "65536)" in source
    weight = source[source.index("int wino_weight_transform("):source.index("int wino_forward(")]
    forward = source[source.index("int wino_forward("):]
    assert "copy_weights<<<dim3(18, 1, 1), dim3(256, 1, 1), 0, stream>>>(w, wt);" in weight
    assert "direct_conv<<<" not in weight and " xs = " not in weight
    assert "copy_input<<<dim3(8, 1, 1), dim3(256, 1, 1), 0, stream>>>(x, xs);" in forward
    assert "direct_conv<<<dim3(16, 1, 1), dim3(256, 1, 1), 65536, stream>>>(xs, wt, y);" in forward
    assert "half* xs = reinterpret_cast<half*>(wb_scratch_base + kScratchOffset0);" in forward
    assert forward.count('WB_CHECK_LAUNCH("direct_conv");') == 1


def test_expected_bytes() -> None:
    # wt: 9*16*32 halves = 9216 B; xs: 4096 B at 0, unused: 12 B at 2 MiB; plus 2 MiB - 256.
    spec = direct_conv_spec()
    assert expected_bytes(spec, ("wt",)) == 9216 + MIB2 - 256
    assert expected_bytes(spec, ("xs", "unused")) == MIB2 + 12 + MIB2 - 256


def test_split_workspaces() -> None:
    """Kept: what a weight launch writes; scratch: the rest, in the spec's order."""
    kept, scratch = library.split_workspaces(direct_conv_spec())
    assert [ws.name for ws in kept] == ["wt"]
    assert [ws.name for ws in scratch] == ["xs", "unused"]


def test_render_int8_types() -> None:
    source = render_library(direct_conv_spec("int8"))
    assert "typedef int8_t IN_T;" in source and "typedef float OUT_T;" in source


def test_describe_json() -> None:
    info = json.loads(library.describe_json(direct_conv_spec("int8")))
    assert info == {
        "abi_version": ABI_VERSION,
        "workload": {"N": 2, "H": 8, "W": 8, "C": 16, "K": 32},
        "dtype": "int8", "out": "fp32", "x_type": "int8_t", "w_type": "int8_t", "y_type": "float",
        "epilogue_type": "float",
        "layout": {"x": "NHWC", "w": "HWIO", "y": "NHWK"},
        "m": 4, "fusion": "none", "config": "direct-int8", "epilogue": [], "tolerance": 1e-6,
            "commit": "abc123",
    }


def test_render_rejects_forward_reading_weights() -> None:
    spec = direct_conv_spec()
    launch = dataclasses.replace(spec.forward_launches[1], args=("x", "w", "y"))
    with pytest.raises(WinoError, match="wino_forward takes no weights"):
        render_library(dataclasses.replace(spec, forward_launches=(launch,)))


def test_render_rejects_workspace_shadowing_abi() -> None:
    spec = direct_conv_spec()
    spec = dataclasses.replace(spec, workspaces=(*spec.workspaces, Workspace("wino_x", "int", 1)))
    with pytest.raises(WinoError, match="clash with the library ABI"):
        render_library(spec)


# ---- artifact folders -----------------------------------------------------------------------
def test_load_spec_round_trip(tmp_path: Path) -> None:
    write_direct_artifact(tmp_path, "int8", shared_bytes=50_000)
    assert load_spec(tmp_path) == direct_conv_spec("int8", shared_bytes=50_000)


def test_load_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(WinoError, match="harness_spec.json not found"):
        load_spec(tmp_path)
    write_direct_artifact(tmp_path)
    (tmp_path / KERNELS_FILE).unlink()
    with pytest.raises(WinoError, match="reconstructed.cu not found"):
        load_spec(tmp_path)
    (tmp_path / KERNELS_FILE).write_text("")
    (tmp_path / "harness_spec.json").write_text('{"n": 1}')
    with pytest.raises(WinoError, match="not a valid harness spec"):
        load_spec(tmp_path)


def test_kernels_file_matches_artifact_builder() -> None:
    # Read, not imported: wino_tvm.artifact imports TVM, which takes minutes to load here.
    source = (Path(library.__file__).parent / "artifact.py").read_text()
    assert f'RECONSTRUCTED_FILE = "{KERNELS_FILE}"' in source


def test_render_epilogue_pointer_checks() -> None:
    """wino_forward refuses a NULL bias it reads and a residual it was built without."""
    spec = direct_conv_spec()
    copy, conv = spec.forward_launches
    launch = dataclasses.replace(conv, args=("xs", "wt", "bias", "y"))
    spec = dataclasses.replace(spec, forward_launches=(copy, launch), epilogue=("bias", "relu"))
    source = render_library(spec)
    check = ("if ((wb_bias != nullptr) != true ||\n      (wb_residual != nullptr) != false ||\n"
             "      (wb_y_scale != nullptr) != false) {")
    assert check in source
    assert "direct_conv<<<" in source and "(xs, wt, bias, y);" in source
    assert json.loads(library.describe_json(spec))["epilogue"] == ["bias", "relu"]


# ---- nvcc build and ctypes glue -------------------------------------------------------------
@pytest.mark.nvcc
@pytest.mark.parametrize("dtype", ["fp16", "int8"])
def test_compile_library_and_load(tmp_path: Path, dtype: str) -> None:
    write_direct_artifact(tmp_path, dtype, shared_bytes=64 * 1024)
    so = compile_library(tmp_path, "sm_90")
    assert so == tmp_path / "libwino.so" and so.stat().st_size > 0
    assert (tmp_path / LIBRARY_SOURCE_FILE).read_text() == render_library(load_spec(tmp_path))
    # cudart is linked statically and only reaches for the driver at the first CUDA call, so
    # the library loads here; only the two functions that touch no CUDA are called.
    lib = WinoLibrary(so)
    spec = direct_conv_spec(dtype)
    assert lib.workspace_bytes() == expected_bytes(spec, ("wt",))
    assert lib.scratch_bytes == expected_bytes(spec, ("xs", "unused"))
    assert lib.describe()["config"] == f"direct-{dtype}"
    # The kernels' extern "C" names stay hidden, so many variants can share a process.
    assert hasattr(lib._lib, "wino_forward")
    with pytest.raises(AttributeError):
        lib._lib.direct_conv  # noqa: B018


@pytest.mark.nvcc
def test_compile_library_with_a_persistent_launch(tmp_path: Path) -> None:
    spec = direct_conv_spec()
    copy, conv = spec.forward_launches
    conv = dataclasses.replace(conv, persistent=True)
    spec = dataclasses.replace(spec, forward_launches=(copy, conv))
    write_artifact(spec, tmp_path, {KERNELS_FILE: spec.kernels_source})
    so = compile_library(tmp_path, "sm_90")
    source = (tmp_path / LIBRARY_SOURCE_FILE).read_text()
    # The grid query returns its CUDA errors to the caller, as every other call there.
    assert "WB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(" in source
    assert so.stat().st_size > 0


@pytest.mark.nvcc
def test_compile_library_reports_nvcc_errors(tmp_path: Path) -> None:
    write_direct_artifact(tmp_path)
    (tmp_path / LIBRARY_SOURCE_FILE).write_text("this is not CUDA\n")
    with pytest.raises(WinoError, match="nvcc failed"):
        compile_library(tmp_path, "sm_90")


class FakeFunction:
    """Stands in for a ctypes function: records calls, returns a fixed value."""

    def __init__(self, result: object) -> None:
        self.result, self.calls = result, []
        self.restype = self.argtypes = None

    def __call__(self, *args: object) -> object:
        self.calls.append(args)
        return self.result


class FakeLibrary:
    def __init__(self, status: int = 0, abi_version: int = ABI_VERSION,
                 epilogue: tuple[str, ...] = (), dtype: str = "fp16", out: str = "fp16",
                 scratch_bytes: int = 0) -> None:
        self.wino_workspace_bytes = FakeFunction(4096)
        self.wino_scratch_bytes = FakeFunction(scratch_bytes)
        self.wino_describe = FakeFunction(json.dumps({
            "abi_version": abi_version, "epilogue": list(epilogue), "dtype": dtype, "out": out,
        }).encode())
        self.wino_error_string = FakeFunction(b"an illegal memory access was encountered")
        self.wino_weight_transform = FakeFunction(status)
        self.wino_forward = FakeFunction(status)


def test_wrapper_glue_with_fake_library() -> None:
    fake = FakeLibrary()
    lib = WinoLibrary("libfake.so", cdll=fake)
    assert fake.wino_forward.argtypes == [ctypes.c_void_p] * 8
    assert fake.wino_forward.restype is ctypes.c_int
    assert fake.wino_weight_transform.argtypes == [ctypes.c_void_p] * 3
    assert fake.wino_workspace_bytes.restype is ctypes.c_size_t
    assert lib.workspace_bytes() == 4096
    lib.weight_transform(0x1000, 0x2000, 7)
    lib.forward(0x3000, 0x4000, 0x2000, 7)
    assert fake.wino_weight_transform.calls == [(0x1000, 0x2000, 7)]
    assert fake.wino_forward.calls == [(0x3000, None, None, None, 0x4000, 0x2000, None, 7)]


def test_wrapper_passes_and_checks_the_scratch() -> None:
    """A library with a scratch takes its pointer on every forward; one without refuses it."""
    fake = FakeLibrary(scratch_bytes=8192)
    lib = WinoLibrary("libfake.so", cdll=fake)
    assert lib.scratch_bytes == 8192
    lib.forward(0x3000, 0x4000, 0x2000, 7, scratch_ptr=0x9000)
    assert fake.wino_forward.calls == [(0x3000, None, None, None, 0x4000, 0x2000, 0x9000, 7)]
    with pytest.raises(WinoError, match="takes a scratch of 8192 bytes: pass scratch_ptr"):
        lib.forward(0x3000, 0x4000, 0x2000, 7)
    with pytest.raises(WinoError, match="takes no scratch"):
        WinoLibrary("libfake.so", cdll=FakeLibrary()).forward(1, 2, 3, 0, scratch_ptr=4)
    assert len(fake.wino_forward.calls) == 1


def test_wrapper_passes_and_checks_epilogue_pointers() -> None:
    fake = FakeLibrary(epilogue=("bias", "relu"))
    lib = WinoLibrary("libfake.so", cdll=fake)
    lib.forward(0x3000, 0x4000, 0x2000, 7, bias_ptr=0x5000)
    assert fake.wino_forward.calls == [(0x3000, 0x5000, None, None, 0x4000, 0x2000, None, 7)]
    with pytest.raises(WinoError, match="built with bias,relu and fp16 output: pass bias_ptr when"):
        lib.forward(0x3000, 0x4000, 0x2000, 7)
    with pytest.raises(WinoError, match="pass residual_ptr only when"):
        lib.forward(0x3000, 0x4000, 0x2000, 7, bias_ptr=0x5000, residual_ptr=0x6000)
    assert len(fake.wino_forward.calls) == 1  # refused calls never reach the library


def test_wrapper_passes_and_checks_the_output_scale() -> None:
    """A library from int8 to an fp16 or int8 y takes y_scale; every other refuses one."""
    fake = FakeLibrary(dtype="int8", out="int8")
    lib = WinoLibrary("libfake.so", cdll=fake)
    lib.forward(0x3000, 0x4000, 0x2000, 7, y_scale_ptr=0x7000)
    assert fake.wino_forward.calls == [(0x3000, None, None, 0x7000, 0x4000, 0x2000, None, 7)]
    with pytest.raises(WinoError, match="no epilogue and int8 output: pass y_scale_ptr when"):
        lib.forward(0x3000, 0x4000, 0x2000, 7)
    other = WinoLibrary("libfake.so", cdll=FakeLibrary(dtype="int8", out="fp32"))
    with pytest.raises(WinoError, match="pass y_scale_ptr only when"):
        other.forward(0x3000, 0x4000, 0x2000, 7, y_scale_ptr=0x7000)


def test_wrapper_raises_with_cuda_error_text() -> None:
    lib = WinoLibrary("libfake.so", cdll=FakeLibrary(status=700))
    with pytest.raises(WinoError, match=r"wino_forward .* CUDA error 700 \(an illegal memory"):
        lib.forward(1, 2, 3, 0)
    with pytest.raises(WinoError, match="wino_weight_transform"):
        lib.weight_transform(1, 3, 0)


def test_wrapper_rejects_other_abi_and_non_libraries(tmp_path: Path) -> None:
    with pytest.raises(WinoError, match="ABI version 99"):
        WinoLibrary("libfake.so", cdll=FakeLibrary(abi_version=99))
    fake = FakeLibrary()
    del fake.wino_forward
    with pytest.raises(WinoError, match="has no wino_forward"):
        WinoLibrary("libfake.so", cdll=fake)
    with pytest.raises(WinoError, match="cannot load"):
        WinoLibrary(tmp_path / "missing.so")


# ---- on a GPU -------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["fp16", "int8"])
def test_library_computes_the_convolution(tmp_path: Path, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    from wino_tvm.runner import detect_arch

    n, h, w, c, k = SMALL
    lib = WinoLibrary(compile_library(write_direct_artifact(tmp_path, dtype, shared_bytes=64 << 10),
                                      detect_arch()))
    if dtype == "fp16":
        x = torch.rand(n, h, w, c, device="cuda").half() * 2 - 1
        wt = torch.rand(3, 3, c, k, device="cuda").half() * 2 - 1
    else:
        x = torch.randint(-127, 128, (n, h, w, c), device="cuda", dtype=torch.int8)
        wt = torch.randint(-127, 128, (3, 3, c, k), device="cuda", dtype=torch.int8)
    y = torch.full((n, h, w, k), float("nan"), device="cuda",
                   dtype=torch.float16 if dtype == "fp16" else torch.float32)
    # Both buffers 256 bytes past a 2 MiB boundary, the most the library's own alignment of
    # its layouts skips; the bytes around them must stay untouched.
    stream = torch.cuda.current_stream().cuda_stream
    raws, starts, ptrs = [], [], []
    for size in (lib.workspace_bytes(), lib.scratch_bytes):
        raws.append(torch.zeros(size + 4 * MIB2, dtype=torch.uint8, device="cuda"))
        starts.append((-raws[-1].data_ptr()) % MIB2 + 256)
        ptrs.append(raws[-1].data_ptr() + starts[-1])
    workspace, scratch = ptrs
    lib.weight_transform(wt.data_ptr(), workspace, stream)
    ref = torch.nn.functional.conv2d(x.double().permute(0, 3, 1, 2),
                                     wt.double().permute(3, 2, 0, 1), padding=1)
    for call in range(2):  # the scratch holds nothing between calls: poisoned before the second
        y.fill_(float("nan"))
        lib.forward(x.data_ptr(), y.data_ptr(), workspace, stream, scratch_ptr=scratch)
        torch.cuda.synchronize()
        err = (y.double() - ref.permute(0, 2, 3, 1)).norm() / ref.norm()
        assert err < (1e-3 if dtype == "fp16" else 1e-7), call
        for raw, start, size in zip(raws, starts, (lib.workspace_bytes(), lib.scratch_bytes),
                                    strict=True):
            assert raw[start:start + size].any()  # the weights and the input copy landed inside
            assert not raw[:start].any() and not raw[start + size:].any()
        raws[1][starts[1]:starts[1] + lib.scratch_bytes].fill_(0xFF)
    for misaligned in ((workspace + 8, scratch), (workspace, scratch + 8)):
        with pytest.raises(WinoError, match="invalid argument"):
            lib.forward(x.data_ptr(), y.data_ptr(), misaligned[0], stream,
                        scratch_ptr=misaligned[1])
