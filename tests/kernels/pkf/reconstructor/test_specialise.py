"""Warp specialisation of ITrans: folding and simplifying on small texts, then on TVM output."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import asdict, replace
from pathlib import Path

import pytest
import regex
from stored_sources import FIXTURES, stored

from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.launch import Launch
from wino_tvm.kernels.pkf.reconstructor.pipeline import Options, reconstruct
from wino_tvm.kernels.pkf.reconstructor.source import Kernel, split_kernels
from wino_tvm.kernels.pkf.reconstructor.specialise import (
    compute_span,
    fold_selects,
    fused_span,
    simplify,
    specialise_case,
    specialise_fused,
    specialise_itrans,
)
from wino_tvm.kernels.pkf.reconstructor.whole_tiles import WHOLE_TILES_MARK

MINI = (FIXTURES / "mini.cu").read_text()
MINI_LAUNCHES = json.loads((FIXTURES / "mini.launches.json").read_text())
ITRANS_LAUNCH = next(e for e in MINI_LAUNCHES if e["name"] == "itrans_kernel")
ZERO, ONE, MINUS_ONE = ("0x0p+0f/*0.000000e+00*/", "0x1p+0f/*1.000000e+00*/",
                        "-0x1p+0f/*-1.000000e+00*/")
# A select chain as TVM prints one for B's column w: 1 for w = 3, -1 for w = 1, else 0.
COLUMN = (f"((((int)threadIdx.y) == 3) ? {ONE} : "
          f"((((int)threadIdx.y) == 1) ? {MINUS_ONE} : {ZERO}))")


def mini_itrans() -> tuple[Kernel, Launch]:
    kernel = next(k for k in split_kernels(MINI).kernels if k.name == "itrans_kernel")
    return kernel, Launch.from_dict(ITRANS_LAUNCH)


def region(kernel: Kernel, fused: bool) -> str:
    start, end = (fused_span if fused else compute_span)(kernel)
    return kernel.body[start:end]


# ---- folding and simplifying ----------------------------------------------------------------

@pytest.mark.parametrize(("warp", "value"), [(0, ZERO), (1, MINUS_ONE), (2, ZERO), (3, ONE)])
def test_fold_selects_walks_the_chain(warp: int, value: str) -> None:
    assert fold_selects(COLUMN.replace("((int)threadIdx.y)", str(warp))) == value


def test_fold_selects_keeps_other_code() -> None:
    text = "a[0] = ((b[1] == 2) ? c : d);\n"
    assert fold_selects(text) == text


@pytest.mark.parametrize(("warp", "expected"), [
    (0, "  v[0] = ((float)d[4]);\n"),  # the zero terms go, the first term starts v
    (1, "  v[0] = (-((float)d[0]));\n  v[0] = (v[0] + ((float)d[4]));\n"),
    (3, "  v[0] = ((float)d[0]);\n  v[0] = (v[0] + ((float)d[4]));\n"),
])
def test_specialise_case_float(warp: int, expected: str) -> None:
    text = (f"  v[0] = {ZERO};\n"
            f"  v[0] = (v[0] + (((float)d[0]) * {COLUMN}));\n"
            f"  v[0] = (v[0] + (((float)d[4]) * {ONE}));\n")
    assert specialise_case(text, warp) == expected


def test_specialise_case_int8_literals() -> None:
    column = "((((int)threadIdx.y) == 2) ? -1 : ((((int)threadIdx.y) == 1) ? 1 : 0))"
    text = (f"  acc[1] = 0;\n  acc[1] = (acc[1] + (((int)d[3]) * {column}));\n"
            f"  acc[1] = (acc[1] + ({column} * ((int)d[5])));\n")
    assert specialise_case(text, 0) == "  acc[1] = 0;\n"
    assert specialise_case(text, 1) == ("  acc[1] = ((int)d[3]);\n"
                                        "  acc[1] = (acc[1] + ((int)d[5]));\n")
    assert specialise_case(text, 2) == ("  acc[1] = (-((int)d[3]));\n"
                                        "  acc[1] = (acc[1] + (-((int)d[5])));\n")


def test_simplify_keeps_other_products() -> None:
    text = "  v = (v + (x * 0x1p+1f/*2.000000e+00*/));\n  w = (x * 10);\n  u = (y * 0);\n"
    assert simplify(text) == text


@pytest.mark.parametrize("between", [
    "  w = v;\n",                  # reads v's 0
    "  if (c) {\n",                # another scope
])
def test_simplify_keeps_the_zero_start_when_unsafe(between: str) -> None:
    text = f"  v = {ZERO};\n{between}  v = (v + x);\n"
    assert simplify(text) == text


def test_simplify_keeps_the_zero_start_when_the_term_reads_v() -> None:
    text = f"  v = {ZERO};\n  v = (v + (v * x));\n"
    assert simplify(text) == text


def test_simplify_moves_the_start_past_unrelated_lines() -> None:
    text = f"  v[1] = {ZERO};\n  float t = {ONE};\n  v[1] = (v[1] + x[2]);\n"
    assert simplify(text) == f"  float t = {ONE};\n  v[1] = x[2];\n"


# ---- the pass on the hand-written ITrans ------------------------------------------------------

def test_specialise_itrans_mini() -> None:
    kernel, launch = mini_itrans()
    out = specialise_itrans(kernel, launch)
    body = out.body
    assert "threadIdx.y) ==" not in body
    assert regex.findall(r"^  case (\d): \{$", body, flags=regex.M) == ["0", "1"]
    assert body.count("__builtin_unreachable();") == 1
    # Column 0 of the hand-written B is 1, column 1 is 2.
    assert "acc_local_ptr[0] = ((float)condval);" in body
    assert "acc_local_ptr[0] = (((float)condval) * 0x1p+1f/*2.000000e+00*/);" in body
    # The declarations before and the store after the compute part stay as they were.
    head, tail = kernel.body.split("  int cse_v1")[0], kernel.body[compute_span(kernel)[1]:]
    assert body.startswith(head) and body.endswith(tail)


def _with_body(kernel: Kernel, old: str, new: str) -> Kernel:
    assert kernel.body.count(old) == 1, old
    return replace(kernel, body=kernel.body.replace(old, new))


@pytest.mark.parametrize(("old", "new", "launch", "message"), [
    ("((((int)threadIdx.y) == 1) ? 0x1p+1f/*2.000000e+00*/ : 0x1p+0f/*1.000000e+00*/)",
     "0x1p+0f/*1.000000e+00*/", {}, r"no `\(\(int\)threadIdx.y\) == N` select"),
    ("(((int)threadIdx.y) == 1)", "(((int)threadIdx.y) == 2)", {},
     "selects tap column 2 but the block has only 2 warps"),
    ("  for (int i_0 = 0;", "  int shared_cse = 1;\n  for (int i_0 = 0;", {},
     r"declares \['shared_cse'\], which the code after it reads"),
    ("    acc_local_ptr[1] =", "    __syncwarp();\n    acc_local_ptr[1] =", {}, "holds a barrier"),
    ("  __syncthreads();\n", "", {}, "no top-level barrier ends the compute part"),
    ("", "", {"block": [16, 2, 1]}, "blockDim.x 16 is no multiple of 32"),
])
def test_specialise_itrans_refuses(old: str, new: str, launch: dict, message: str) -> None:
    kernel, good = mini_itrans()
    if old:
        kernel = _with_body(kernel, old, new)
    if "shared_cse" in new:  # the store part reads the name the compute part declared
        kernel = _with_body(kernel, "(((int)blockIdx.y) * 16)) + ((((int)threadIdx.x) & 1) * 8)))",
                            "(((int)blockIdx.y) * 16)) + ((((int)threadIdx.x) & 1) * 8))) + "
                            "shared_cse")
    bad = Launch.from_dict({**ITRANS_LAUNCH, **launch})
    with pytest.raises(ReconstructError, match="specialise_itrans: .*" + message):
        specialise_itrans(kernel, bad if launch else good)


def test_specialise_fused_needs_the_fusion_comment() -> None:
    kernel, launch = mini_itrans()
    with pytest.raises(ReconstructError, match="specialise_fused: expected one `// PKF-Shmem:`"):
        specialise_fused(kernel, launch)


@pytest.mark.parametrize("fusion", ["syncfree", "shmem", "llc"])
def test_reconstruct_specialises_unless_told_not_to(fusion: str) -> None:
    on, off = (reconstruct(MINI, MINI_LAUNCHES, Options(fusion, specialise=s)).source
               for s in (True, False))
    assert "switch ((int)threadIdx.y) {" in on and "switch" not in off
    assert "threadIdx.y) ==" not in on and "threadIdx.y) ==" in off
    assert "switch" not in reconstruct(MINI, MINI_LAUNCHES, Options("none")).source


# ---- on real TVM output ----------------------------------------------------------------------

# TVM 0.27's output as stored (fp16 and int8, m = 2), and fresh m = 4 output (alpha 6, B with
# entries 2, 4, 5), where TVM's import (tens of seconds) dominates: marked slow.
STORED = ["fp16-m2", "int8-m2"]
FRESH = ["fp16-m4", "int8-m4"]
FUSED = ("shmem", "llc", "full")
NVCC = ["nvcc", "-std=c++17", "-O3", "-diag-suppress=177,1046"]
HAS_NVCC = shutil.which("nvcc") is not None


@pytest.fixture(scope="module")
def fresh() -> dict[str, tuple[str, list[dict]]]:
    from wino_tvm.kernels.pkf.codegen import generate
    from wino_tvm.kernels.pkf.config import PkfConfig
    from wino_tvm.kernels.pkf.schedule import scheduled_module
    from wino_tvm.workload import Conv2dWorkload

    out = {}
    for name in FRESH:
        # Three tile blocks (one at the edge), two channel chunks (TB_K 16 < C 32).
        wl = Conv2dWorkload(2, 11, 13, 32, 32, dtype=name[:4], m=int(name[-1]))
        proto = generate(scheduled_module(wl, PkfConfig(tb_m=32, tb_n=32, tb_k=16)))
        out[name] = (proto.source, [asdict(k) for k in proto.launches])
    return out


def _forward(source: str, launches: list[dict], fusion: str,
             specialise: bool = True) -> tuple[Kernel, dict]:
    r = reconstruct(source, launches, Options(fusion, specialise))
    first = r.forward_launches[0]
    return next(k for k in split_kernels(r.source).kernels if k.name == first["name"]), first


def _check_cases(source: str, launches: list[dict], fusion: str) -> None:
    """The ITrans part has alpha cases and no select or product with 0 left."""
    kernel, launch = _forward(source, launches, fusion)
    part = region(kernel, fusion != "syncfree")
    alpha = launch["block"][1]
    assert "threadIdx.y) ==" not in part and " * 0x0p+0f" not in part
    if WHOLE_TILES_MARK in kernel.body:  # fp16 m=2 full: each case's body after shared loads
        assert "switch" not in part and "case " not in part
    else:
        assert regex.findall(r"^ *case (\d+): \{$", part, flags=regex.M) == [
            str(w) for w in range(alpha)]
    # The zero terms are gone: fewer terms in all cases together than alpha generic copies.
    plain = region(_forward(source, launches, fusion, False)[0], fusion != "syncfree")
    assert part.count(" + ") < alpha * plain.count(" + ")


@pytest.mark.parametrize("name", STORED)
@pytest.mark.parametrize("fusion", ["syncfree", *FUSED])
def test_stored_itrans_has_one_case_per_warp(name: str, fusion: str) -> None:
    _check_cases(*stored(name), fusion)


@pytest.mark.slow
@pytest.mark.parametrize("name", FRESH)
@pytest.mark.parametrize("fusion", ["syncfree", *FUSED])
def test_fresh_itrans_has_one_case_per_warp(fresh, name: str, fusion: str) -> None:
    _check_cases(*fresh[name], fusion)


@pytest.mark.nvcc
@pytest.mark.skipif(not HAS_NVCC, reason="nvcc not on PATH")
@pytest.mark.parametrize("name", STORED)
def test_stored_specialised_sources_compile(tmp_path: Path, name: str) -> None:
    for fusion in ("syncfree", *FUSED):
        path = tmp_path / f"{name}-{fusion}.cu"
        path.write_text(reconstruct(*stored(name), Options(fusion)).source)
        proc = subprocess.run([*NVCC, "-arch=sm_90", "-cubin", "-o",
                               str(path.with_suffix(".cubin")), str(path)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]


# The full kernel's ITrans part compiled for the host, TVM's and ours, run for every thread of
# the first, a middle and the last block and every chunk on the same input: the V slices they
# write must be equal after each chunk (cuda_fp16 converts on the host too; == ignores the sign
# of a zero). x is larger than any input of the tests' shapes; TVM's bounds checks keep the
# reads inside it.
HOST_MAIN = r"""
#include <algorithm>
#include <cstdio>
#include <cstring>
#define __syncthreads()  // one thread at a time: whole tiles' barriers order nothing here
// int8 V's magic-number rounding (reconstructor.rounding) on the host, where a float sum
// rounds to nearest even too.
static float host_fadd_rn(float a, float b) { volatile float s = a + b; return s; }
static int host_float_as_int(float f) { int i; std::memcpy(&i, &f, sizeof i); return i; }
#define __fadd_rn host_fadd_rn
#define __float_as_int host_float_as_int
struct Idx { int x, y, z; };
using std::max;
using std::min;
static void plain(XTYPE* __restrict__ x_ptr, unsigned char* buf_dyn_shmem_ptr, int c_0,
                  Idx threadIdx, Idx blockIdx) {
ARRAYS
PLAIN
}
static void specialised(XTYPE* __restrict__ x_ptr, unsigned char* buf_dyn_shmem_ptr, int c_0,
                        Idx threadIdx, Idx blockIdx) {
ARRAYS
SPECIALISED
}
static XTYPE x[1 << 22];
static VTYPE a[SMEM / sizeof(VTYPE)], b[SMEM / sizeof(VTYPE)];
int main() {
  unsigned seed = 12345;
  for (long i = 0; i < (1 << 22); ++i) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (XTYPE)(float)((int)(seed >> 24) % 9 - 4);
  }
  for (int bx : {0, GRIDX / 2, GRIDX - 1})
    for (int c = 0; c < CHUNKS; ++c) {
      for (int ty = 0; ty < ALPHA; ++ty)
        for (int tx = 0; tx < 32; ++tx) {
          plain(x, (unsigned char*)a, c, Idx{tx, ty, 0}, Idx{bx, 0, 0});
          specialised(x, (unsigned char*)b, c, Idx{tx, ty, 0}, Idx{bx, 0, 0});
        }
      for (long i = 0; i < SMEM / (long)sizeof(VTYPE); ++i)
        if ((float)a[i] != (float)b[i]) {
          std::printf("block %d chunk %d slot %ld: %f != %f\n", bx, c, i, (float)a[i],
                      (float)b[i]);
          return 1;
        }
    }
  std::printf("equal\n");
  return 0;
}
"""


def _host_program(source: str, launches: list[dict]) -> str:
    """A host program running the full kernel's ITrans part as TVM wrote it and specialised."""
    plain, launch = _forward(source, launches, "full", specialise=False)
    ours, _ = _forward(source, launches, "full")
    itrans = next(e for e in launches if e["name"] == "itrans_kernel")
    arrays = "".join(m.group() for m in regex.finditer(r"^ *alignas\(\d+\) .* it_\w+\[\d+\];\n",
                                                       plain.body, flags=regex.M))
    ctype = "half" if "half* __restrict__ x_ptr" in source else "signed char"
    fills = {"ARRAYS": arrays, "PLAIN": region(plain, True), "SPECIALISED": region(ours, True),
             "XTYPE": ctype, "VTYPE": ctype, "SMEM": str(launch["shared_bytes"]),
             "GRIDX": str(launch["grid"][0]), "CHUNKS": str(itrans["grid"][1]),
             "ALPHA": str(launch["block"][1])}
    text = HOST_MAIN
    for key, value in fills.items():
        text = text.replace(key, value)
    return source[:source.index('extern "C"')] + text


def _check_same_v(tmp_path: Path, source: str, launches: list[dict]) -> None:
    path, exe = tmp_path / "host.cu", tmp_path / "host"
    path.write_text(_host_program(source, launches))
    proc = subprocess.run([*NVCC, "-o", str(exe), str(path)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout == "equal\n", run.stdout


@pytest.mark.nvcc
@pytest.mark.skipif(not HAS_NVCC, reason="nvcc not on PATH")
@pytest.mark.parametrize("name", STORED)
def test_stored_specialised_itrans_computes_the_same_v(tmp_path: Path, name: str) -> None:
    _check_same_v(tmp_path, *stored(name))


@pytest.mark.slow
@pytest.mark.parametrize("fusion", ["syncfree", *FUSED])
def test_default_specialises_alpha_4_only(fresh, fusion: str) -> None:
    """By default m=2 (alpha 4) is specialised and m=4 (alpha 6, slower on the H100) is not."""
    source, launches = stored("fp16-m2")
    # fp16 m=2 full kernels go on to whole tiles, which take the specialised cases apart.
    assert any(mark in reconstruct(source, launches, Options(fusion)).source
               for mark in ("switch ((int)threadIdx.y)", WHOLE_TILES_MARK))
    source, launches = fresh["fp16-m4"]
    default = reconstruct(source, launches, Options(fusion)).source
    assert default == reconstruct(source, launches, Options(fusion, specialise=False)).source
    forced = reconstruct(source, launches, Options(fusion, True)).source
    assert "switch ((int)threadIdx.y)" in forced


@pytest.mark.slow
@pytest.mark.nvcc
@pytest.mark.skipif(not HAS_NVCC, reason="nvcc not on PATH")
@pytest.mark.parametrize("name", FRESH)
def test_fresh_specialised_itrans_computes_the_same_v(fresh, tmp_path: Path, name: str) -> None:
    _check_same_v(tmp_path, *fresh[name])


@pytest.mark.slow
@pytest.mark.nvcc
@pytest.mark.skipif(not HAS_NVCC, reason="nvcc not on PATH")
def test_whole_tile_itrans_computes_the_same_v(one_chunk, tmp_path: Path) -> None:
    """With one channel chunk the full kernel's warps transform whole tiles
    (reconstructor.whole_tiles); together they write TVM's V slice."""
    assert WHOLE_TILES_MARK in reconstruct(*one_chunk, Options("full")).source
    _check_same_v(tmp_path, *one_chunk)


@pytest.mark.slow
@pytest.mark.nvcc
@pytest.mark.skipif(not HAS_NVCC, reason="nvcc not on PATH")
def test_int8_whole_tile_itrans_computes_the_same_v(tmp_path: Path) -> None:
    """int8 with one channel chunk: 16 tiles x 64 channels in 4-byte groups, 8 trips, two per
    warp (the stored int8 source has one per warp, in chunks)."""
    from wino_tvm.kernels.pkf.codegen import generate
    from wino_tvm.kernels.pkf.config import PkfConfig
    from wino_tvm.kernels.pkf.schedule import scheduled_module
    from wino_tvm.workload import Conv2dWorkload

    wl = Conv2dWorkload(2, 11, 13, 64, 32, dtype="int8", m=2)
    proto = generate(scheduled_module(wl, PkfConfig(16, 32, 64, fusion="full")))
    source, launches = proto.source, [asdict(k) for k in proto.launches]
    assert WHOLE_TILES_MARK in reconstruct(source, launches, Options("full")).source
    _check_same_v(tmp_path, source, launches)
