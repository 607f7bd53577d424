"""The reconstructor: each pass on small hand-written sources, then end to end on TVM output."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import regex
from stored_sources import stored

from wino_tvm.errors import NvccNotFound, WinoError
from wino_tvm.kernels.pkf.reconstructor.barriers import Site, barrier_sites, remove_barriers
from wino_tvm.kernels.pkf.reconstructor.cblocks import enclosing_loops, find_loops, matching_brace
from wino_tvm.kernels.pkf.reconstructor.cexpr import compile_int_expr, constant_term, identifiers
from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.full import FULL_KERNEL
from wino_tvm.kernels.pkf.reconstructor.identify import buffer_access, identify_stages
from wino_tvm.kernels.pkf.reconstructor.launch import Launch
from wino_tvm.kernels.pkf.reconstructor.passes import (
    LLC_KERNEL,
    SHMEM_KERNEL,
    fuse_llc,
    fuse_shmem,
    strip_warp_barriers,
)
from wino_tvm.kernels.pkf.reconstructor.pipeline import FUSIONS, Options, reconstruct
from wino_tvm.kernels.pkf.reconstructor.rounding import round_input_taps
from wino_tvm.kernels.pkf.reconstructor.source import (
    CudaSource,
    Kernel,
    render_source,
    split_kernels,
)
from wino_tvm.runner import find_nvcc

# mini.cu: hand-written, shrunk to alpha = 2; the others: TVM 0.27 output (fp16 m=2 with V
# after U in shared memory; int8 m=2 with two KTrans kernels).
REAL = ("fp16-m2", "int8-m2")
load = stored
MINI, MINI_LAUNCHES = load("mini")


def edit(text: str, old: str, new: str) -> str:
    """text with its one occurrence of old replaced (fails if old is absent or repeated)."""
    assert text.count(old) == 1, old
    return text.replace(old, new)


def kernels(source: str = MINI) -> dict[str, Kernel]:
    return {k.name: k for k in split_kernels(source).kernels}


def launches(entries: list[dict] = MINI_LAUNCHES, **changes: dict) -> dict[str, Launch]:
    """name -> Launch, with changes[name] overriding fields of that launch."""
    return {e["name"]: Launch.from_dict({**e, **changes.get(e["name"], {})}) for e in entries}


def mini_fuse(fuse, source: str = MINI, **changes: dict) -> tuple[Kernel, Launch]:
    ks, ls = kernels(source), launches(**changes)
    bgemm = strip_warp_barriers(ks["bgemm_kernel"])
    return fuse(ks["itrans_kernel"], bgemm, ls["itrans_kernel"], ls["bgemm_kernel"])


# ---- index expressions ----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "value"), [
    ("((((int)threadIdx.x) >> 1) * 24) + 8", 5 // 2 * 24 + 8),
    ("1 << 2 + 1", 8),  # C: + binds tighter than <<
    ("6 & 3 | 8", 10),
    ("(0 - 7) / 2", -3),  # C division truncates toward zero
    ("(0 - 7) % 2", -1),
    ("-c_0 * 4 + 17 % 5", -4 + 2),
    ("((int64_t)c_0)", 1),
])
def test_int_expr_follows_c(text: str, value: int) -> None:
    assert compile_int_expr(text)({"threadIdx.x": 5, "c_0": 1}) == value


def test_int_expr_names_and_constant_term() -> None:
    index = "(((((int)threadIdx.y) * 768) + (c_0 * 16)) + 6144)"
    assert identifiers(index) == {"threadIdx.y", "c_0"}
    assert constant_term(index) == 6144


@pytest.mark.parametrize(("text", "message"), [
    ("cse_v1 + 1", "no value for 'cse_v1'"),
    ("(a > 0 ? 1 : 2)", "cannot read"),
    ("(1 + 2", "expected \\)"),
    ("1 2", "trailing"),
])
def test_int_expr_errors(text: str, message: str) -> None:
    with pytest.raises(ReconstructError, match=message):
        compile_int_expr(text)({})


# ---- brace structure --------------------------------------------------------------------------

def test_loops_and_braces() -> None:
    body = kernels()["bgemm_kernel"].body
    loops = find_loops(body)
    assert [(lp.var, lp.extent) for lp in loops] == [
        ("h_init", 2), ("c_0", 2), ("ax0_0", 2), ("ax0_1", 2), ("h", 2), ("ax0", 2)]
    assert matching_brace(body, loops[1].open) == loops[1].close
    mma = body.index("mma_sync(")
    assert [lp.var for lp in enclosing_loops(loops, mma)] == ["c_0", "h"]


def test_unknown_loop_header_is_an_error() -> None:
    with pytest.raises(ReconstructError, match="unrecognised loop header.*i = 1"):
        find_loops("  for (int i = 1; i < 4; ++i) {\n  }\n")


# ---- splitting --------------------------------------------------------------------------------

def test_split_kernels_reads_headers_and_bodies() -> None:
    cuda = split_kernels(MINI)
    assert [k.name for k in cuda.kernels] == [
        "itrans_kernel", "ktrans_kernel", "bgemm_kernel", "otrans_kernel"]
    bgemm = cuda.kernels[2]
    assert bgemm.launch_bounds == 64
    assert [(p.ctype, p.name) for p in bgemm.params] == [
        ("float* __restrict__", "M_ptr"), ("half* __restrict__", "U_ptr"),
        ("half* __restrict__", "V_ptr")]
    assert bgemm.body.startswith("  extern __shared__") and bgemm.body.endswith("  }\n")
    assert "__global__" not in cuda.preamble
    assert cuda.preamble.endswith("#define uchar unsigned char\n")


@pytest.mark.parametrize("name", ["mini", *REAL])
def test_render_source_round_trips(name: str) -> None:
    source, _ = load(name)
    without_declarations = "".join(
        line for line in source.splitlines(keepends=True)
        if not (line.startswith('extern "C"') and line.rstrip().endswith(";")))
    assert render_source(split_kernels(source)).strip() == without_declarations.strip()


@pytest.mark.parametrize(("source", "message"), [
    ("#include <mma.h>\n", "no kernel definition"),
    (MINI.replace("  }\n}\n\nextern \"C\" __global__ void __launch_bounds__(128) otrans",
                  "  }\n\nextern \"C\" __global__ void __launch_bounds__(128) otrans"),
     "unbalanced braces in the body of bgemm_kernel"),
    (MINI.rsplit("}", 1)[0], "otrans_kernel has no closing"),
    (MINI.replace("__launch_bounds__(128) ktrans_kernel(half* __restrict__ U_ptr, "
                  "half* __restrict__ w_ptr) {", "ktrans_kernel(half* U_ptr, half* w_ptr) {"),
     "unrecognised kernel header"),
    (MINI + "int stray;\n", "unexpected text after the last kernel"),
    (edit(MINI, "\nextern \"C\" __global__ void __launch_bounds__(128) ktrans_kernel(half* "
          "__restrict__ U_ptr, half* __restrict__ w_ptr) {", "\n__device__ int g;\nextern \"C\" "
          "__global__ void __launch_bounds__(128) ktrans_kernel(half* __restrict__ U_ptr, half* "
          "__restrict__ w_ptr) {"), "unexpected text before kernel ktrans_kernel"),
])
def test_split_kernels_errors(source: str, message: str) -> None:
    with pytest.raises(ReconstructError, match=message):
        split_kernels(source)


def test_reconstruct_error_is_a_wino_error() -> None:
    assert issubclass(ReconstructError, WinoError)


# ---- identifying the stages -------------------------------------------------------------------

def test_buffer_access() -> None:
    ks = kernels()
    access = buffer_access(ks["bgemm_kernel"])
    assert access.writes == {"M_ptr"} and access.reads == {"U_ptr", "V_ptr"}
    access = buffer_access(ks["itrans_kernel"])
    assert access.writes == {"V_ptr"} and access.reads == {"x_ptr"}


def test_identify_stages_by_content_not_name() -> None:
    renamed = MINI
    for old, new in [("itrans_kernel", "default_function_kernel_3"),
                     ("bgemm_kernel", "default_function_kernel"),
                     ("otrans_kernel", "default_function_kernel_1"),
                     ("ktrans_kernel", "default_function_kernel_2")]:
        renamed = renamed.replace(old, new)
    stages = identify_stages(split_kernels(renamed).kernels)
    assert stages.itrans.name == "default_function_kernel_3"
    assert stages.bgemm.name == "default_function_kernel"
    assert stages.otrans.name == "default_function_kernel_1"
    assert [k.name for k in stages.ktrans] == ["default_function_kernel_2"]


def test_identify_orders_int8_ktrans_by_dependency() -> None:
    source, _ = load("int8-m2")
    found = split_kernels(source).kernels
    for order in (found, found[::-1]):
        stages = identify_stages(order)
        # ktrans_kernel writes U_scale, which ktrans_kernel_1 reads.
        assert [k.name for k in stages.ktrans] == ["ktrans_kernel", "ktrans_kernel_1"]


def test_identify_errors_name_what_was_found() -> None:
    ks = kernels()
    with pytest.raises(ReconstructError, match=r"expected 1..1 otrans kernel\(s\), found \[\]"):
        identify_stages([k for name, k in ks.items() if name != "otrans_kernel"])
    with pytest.raises(ReconstructError, match=r"found \['bgemm_kernel', 'b2'\]"):
        identify_stages([*ks.values(), Kernel("b2", 64, ks["bgemm_kernel"].params,
                                              ks["bgemm_kernel"].body)])
    stray = Kernel("zero_kernel", 64, ks["otrans_kernel"].params, "  M_ptr[0] = 0;\n")
    with pytest.raises(ReconstructError, match=r"zero_kernel is no Winograd stage \(writes "
                                               r"\['M_ptr'\]"):
        identify_stages([*ks.values(), stray])


# ---- barriers in the BGEMM --------------------------------------------------------------------

def test_strip_warp_barriers() -> None:
    bgemm = kernels()["bgemm_kernel"]
    stripped = strip_warp_barriers(bgemm)
    assert "__syncthreads" not in stripped.body
    assert stripped.body.count("__syncwarp();") == bgemm.body.count("__syncthreads();") == 2
    assert stripped.body.replace("__syncwarp", "__syncthreads") == bgemm.body


def test_strip_warp_barriers_refuses_shared_data() -> None:
    # The U copy no longer depends on the warp: every warp would write the same slots.
    shared = edit(MINI, "((((ax0_1 * 768) + (((int)threadIdx.y) * 384)) + ", "((((ax0_1 * 768) + ")
    with pytest.raises(ReconstructError, match="strip_warp_barriers.*does not index with "
                                               "threadIdx.y"):
        strip_warp_barriers(kernels(shared)["bgemm_kernel"])
    bgemm = kernels()["bgemm_kernel"]
    with pytest.raises(ReconstructError, match=r"strip_warp_barriers: no __syncthreads\(\); "
                                               "in bgemm_kernel"):
        strip_warp_barriers(strip_warp_barriers(bgemm))


# ---- PKF-Shmem --------------------------------------------------------------------------------

def test_fuse_shmem() -> None:
    fused, launch = mini_fuse(fuse_shmem)
    body = fused.body
    assert fused.name == SHMEM_KERNEL and fused.launch_bounds == 64
    assert [p.name for p in fused.params] == ["x_ptr", "M_ptr", "U_ptr"]
    assert launch == Launch(SHMEM_KERNEL, ("x", "M", "U"), (2, 1, 1), (32, 2, 1), 6144)
    assert "V_ptr" not in body and "__syncthreads" not in body and "mma_sync" in body
    assert "blockIdx.y) * 16)) + (((int)threadIdx.x) & 15))]" not in body  # ITrans's c index
    # ITrans's arithmetic, renamed, reading chunk c_0 of x, storing into the V slice (elements
    # 1536.. of the BGEMM's buffer, i.e. byte 3072).
    assert "it_acc_local_ptr[1] = (((float)it_condval) * -0x1p+0f" in body
    assert "(((int)c_0) * 16)) + (((int)threadIdx.x) & 15))]" in body
    assert body.count("((half*)(((unsigned char*)buf_dyn_shmem_ptr) + 3072))[") == 2
    # Local arrays hoisted to the top; the U copy and its warp barrier stay.
    assert body.index("alignas(64) float it_acc_local_ptr[2];") < body.index("for (int c_0")
    assert "U_ptr + " in body and body.count("__syncwarp();") == 3
    c_loop = next(lp for lp in find_loops(body) if lp.var == "c_0")
    order = [body.index(s, c_loop.open) for s in ("for (int it_i_0", "for (int ax0_1", "mma_sync")]
    assert order == sorted(order)


def test_fuse_shmem_with_a_single_channel_chunk() -> None:
    # With C = TB_K TVM drops the reduction loop; blockIdx.y of ITrans becomes chunk 0.
    ks = kernels()
    body = ks["bgemm_kernel"].body
    c_loop = next(lp for lp in find_loops(body) if lp.var == "c_0")
    inner = body[c_loop.open + 2:c_loop.close].replace("c_0", "0").replace("\n  ", "\n")
    one_chunk = MINI.replace(body, body[:c_loop.start] + inner[2:] + body[c_loop.end:])
    fused, _ = mini_fuse(fuse_shmem, one_chunk, itrans_kernel={"grid": [2, 1, 1]})
    assert "(((int)0) * 16)) + (((int)threadIdx.x) & 15))]" in fused.body
    assert "for (int c_0" not in fused.body


@pytest.mark.parametrize(("source", "changes", "message"), [
    (MINI, {"itrans_kernel": {"shared_bytes": 4096}},
     r"V slice \(elements 1536.. of buf_dyn_shmem_ptr\) holds 3072 bytes but ITrans stages 4096"),
    (MINI, {"itrans_kernel": {"grid": [2, 3, 1]}}, r"ITrans grid \(2, 3, 1\) should be"),
    (MINI, {"itrans_kernel": {"block": [32, 4, 1]}}, r"ITrans block \(32, 4, 1\) != BGEMM block"),
    # ITrans stores V with another tile stride than the BGEMM reads it.
    (edit(MINI, "+ ((((int)threadIdx.x) >> 1) * 32)) + (((int)blockIdx.y) * 16))",
          "+ ((((int)threadIdx.x) >> 1) * 64)) + (((int)blockIdx.y) * 16))"),
     {}, "disagree on the layout"),
    # ITrans's compute puts tap row 1 at another place than its store reads it from.
    (edit(MINI, "(((int)threadIdx.x) & 15)) + 768)]", "(((int)threadIdx.x) & 15)) + 776)]"),
     {}, "fill other shared slots"),
    (edit(MINI, "  __syncthreads();\n  for (int ax0_0", "  for (int ax0_0"), {},
     r"expected exactly one top-level __syncthreads\(\); in ITrans"),
    (edit(MINI, "= *(uint4*)(V_ptr + (", "= *(uint4*)(U_ptr + ("), {},
     "expected exactly one copy V_ptr -> shared memory, found 0"),
])
def test_fuse_shmem_refuses_mismatches(source: str, changes: dict, message: str) -> None:
    with pytest.raises(ReconstructError, match="fuse_shmem: .*" + message):
        mini_fuse(fuse_shmem, source, **changes)


# ---- PKF-LLC ----------------------------------------------------------------------------------

def test_fuse_llc() -> None:
    fused, launch = mini_fuse(fuse_llc)
    body = fused.body
    assert fused.name == LLC_KERNEL
    assert [p.name for p in fused.params] == ["V_ptr", "x_ptr", "M_ptr", "U_ptr"]
    # ITrans's staging buffer goes after the BGEMM's 6144 bytes.
    assert launch == Launch(LLC_KERNEL, ("V", "x", "M", "U"), (2, 1, 1), (32, 2, 1), 6144 + 3072)
    assert "((half*)(((unsigned char*)buf_dyn_shmem_ptr) + 6144))[" in body
    assert "*(uint4*)(((half*)(((unsigned char*)buf_dyn_shmem_ptr) + 6144)) + " in body
    # Per chunk: ITrans compute, its barrier, its store to V, our barrier, then the V copy.
    c_loop = next(lp for lp in find_loops(body) if lp.var == "c_0")
    marks = ["for (int it_i_0", "__syncthreads();", "*(uint4*)(V_ptr + ", "__syncthreads();",
             "= *(uint4*)(V_ptr + ", "__syncwarp();", "mma_sync"]
    pos, found = c_loop.open, []
    for mark in marks:
        pos = body.index(mark, pos + 1)
        found.append(pos)
    assert found[-1] < c_loop.close
    assert "(((int)c_0) * 16)) + ((((int)threadIdx.x) & 1) * 8))) = *(uint4*)" in body


def test_fuse_llc_refuses_a_layout_mismatch() -> None:
    bad = edit(MINI, "+ ((((int)threadIdx.x) >> 1) * 32)) + (((int)blockIdx.y) * 16))",
               "+ ((((int)threadIdx.x) >> 1) * 64)) + (((int)blockIdx.y) * 16))")
    with pytest.raises(ReconstructError, match="fuse_llc: .*disagree on the layout"):
        mini_fuse(fuse_llc, bad)


# ---- barrier search helpers -------------------------------------------------------------------

def test_barrier_sites_and_removal() -> None:
    sites = barrier_sites(MINI)
    assert [(s.kernel, s.index, s.call) for s in sites] == [
        ("itrans_kernel", 0, "__syncthreads"), ("bgemm_kernel", 0, "__syncthreads"),
        ("bgemm_kernel", 1, "__syncthreads")]
    lines = MINI.splitlines()
    assert all(lines[s.line - 1].strip() == "__syncthreads();" for s in sites)
    fewer = remove_barriers(MINI, [sites[2]])
    assert len(fewer.splitlines()) == len(lines) - 1
    assert [(s.kernel, s.index) for s in barrier_sites(fewer)] == [
        ("itrans_kernel", 0), ("bgemm_kernel", 0)]
    with pytest.raises(ReconstructError, match="not a barrier of this source"):
        remove_barriers(fewer, [sites[2]])
    with pytest.raises(ReconstructError, match="not a barrier"):
        remove_barriers(MINI, [Site("bgemm_kernel", 0, sites[0].line, "__syncthreads")])


# ---- the pipeline -----------------------------------------------------------------------------

def test_reconstruct_none_keeps_the_prototype() -> None:
    out = reconstruct(MINI, MINI_LAUNCHES, Options("none"))
    assert split_kernels(out.source).kernels == tuple(
        kernels()[n] for n in ("ktrans_kernel", "itrans_kernel", "bgemm_kernel", "otrans_kernel"))
    assert [e["name"] for e in out.weight_launches] == ["ktrans_kernel"]
    assert out.forward_launches == [e for e in MINI_LAUNCHES if e["name"] != "ktrans_kernel"]
    assert out.removed_barriers == []


def test_reconstruct_syncfree() -> None:
    out = reconstruct(MINI, MINI_LAUNCHES, Options("syncfree"))
    bgemm = kernels(out.source)["bgemm_kernel"]
    assert "__syncthreads" not in bgemm.body and "__syncthreads" in kernels(out.source)[
        "itrans_kernel"].body
    assert out.removed_barriers == [
        "bgemm_kernel: __syncthreads() #0 -> __syncwarp()",
        "bgemm_kernel: __syncthreads() #1 -> __syncwarp()"]


@pytest.mark.parametrize(("fusion", "fused"), [("shmem", SHMEM_KERNEL), ("llc", LLC_KERNEL)])
def test_reconstruct_fused(fusion: str, fused: str) -> None:
    out = reconstruct(MINI, MINI_LAUNCHES, Options(fusion))
    assert list(kernels(out.source)) == ["ktrans_kernel", fused, "otrans_kernel"]
    assert [e["name"] for e in out.forward_launches] == [fused, "otrans_kernel"]
    assert json.loads(json.dumps(out.forward_launches)) == out.forward_launches


def test_reconstruct_errors() -> None:
    with pytest.raises(ReconstructError, match="unknown fusion 'magic'"):
        reconstruct(MINI, MINI_LAUNCHES, Options("magic"))
    # The hand-written fixture's OTrans predates the BGEMM-shaped OTrans: full fusion says so.
    with pytest.raises(ReconstructError, match="fuse_full: OTrans launches .* must own the same"):
        reconstruct(MINI, MINI_LAUNCHES, Options("full"))
    with pytest.raises(ReconstructError, match="no launch given for kernel otrans_kernel"):
        reconstruct(MINI, MINI_LAUNCHES[:-1], Options("none"))
    swapped = [{**e, "params": ["x", "V"]} if e["name"] == "itrans_kernel" else e
               for e in MINI_LAUNCHES]
    with pytest.raises(ReconstructError, match=r"itrans_kernel passes \['x', 'V'\] but the "
                                               r"kernel takes \['V', 'x'\]"):
        reconstruct(MINI, swapped, Options("none"))
    with pytest.raises(ReconstructError, match="lacks \\['shared_bytes'\\]"):
        reconstruct(MINI, [{k: v for k, v in e.items() if k != "shared_bytes"}
                           for e in MINI_LAUNCHES], Options("none"))


# ---- end to end on real TVM output ----------------------------------------------------------

@pytest.mark.parametrize("name", REAL)
@pytest.mark.parametrize("fusion", FUSIONS)
def test_reconstruct_real_prototype(name: str, fusion: str) -> None:
    source, entries = load(name)
    out = reconstruct(source, entries, Options(fusion))
    prototype, rebuilt = kernels(source), kernels(out.source)
    itrans, bgemm = prototype["itrans_kernel"], prototype["bgemm_kernel"]
    int8 = name.startswith("int8")
    assert [e["name"] for e in out.weight_launches] == (
        ["ktrans_kernel", "ktrans_kernel_1"] if int8 else ["ktrans_kernel"])
    by_name = {e["name"]: e for e in entries}
    if fusion == "none":
        assert rebuilt == {n: prototype[n] for n in rebuilt} and len(rebuilt) == len(prototype)
        return
    if fusion == "syncfree":
        assert "__syncthreads" not in rebuilt["bgemm_kernel"].body
        # ITrans as TVM wrote it, but for its compute per warp (reconstructor.specialise) and
        # int8 V's rounding (reconstructor.rounding).
        assert "switch ((int)threadIdx.y) {" in rebuilt["itrans_kernel"].body
        plain = kernels(reconstruct(source, entries, Options(fusion, specialise=False)).source)
        assert plain["itrans_kernel"] == round_input_taps(itrans)
        return
    if fusion == "full":
        (only,) = out.forward_launches
        assert only["name"] == FULL_KERNEL and only["grid"] == by_name["bgemm_kernel"]["grid"]
        body = rebuilt[FULL_KERNEL].body
        assert "M_ptr" not in body and "V_ptr" not in body and "y_ptr[" in body
        assert "it_V_acc_local_ptr[" in body and "ot_Y_tile_local_ptr[" in body
        return
    fused_name = SHMEM_KERNEL if fusion == "shmem" else LLC_KERNEL
    fused = rebuilt[fused_name]
    assert "mma_sync" in fused.body and "store_matrix_sync" in fused.body
    # ITrans's arithmetic (its local accumulator, its reads of x) is in the fused kernel.
    assert "it_V_acc_local_ptr[0] = " in fused.body and "x_ptr" in fused.body
    # ITrans's blockIdx.y is the chunk loop variable now (the BGEMM's own is the K block).
    code = regex.sub(r"//.*", "", fused.body)
    assert "blockIdx.y" not in code.split("U_ptr + ")[0]
    first, launch = out.forward_launches
    assert first["name"] == fused_name and first["grid"] == by_name["bgemm_kernel"]["grid"]
    assert first["block"] == by_name["bgemm_kernel"]["block"]
    bgemm_bytes = by_name["bgemm_kernel"]["shared_bytes"]
    if fusion == "shmem":
        assert first["params"] == ["x", "M", "U"] and first["shared_bytes"] == bgemm_bytes
        assert "V_ptr" not in fused.body and "__syncthreads" not in fused.body
    else:
        assert first["params"] == ["V", "x", "M", "U"]
        assert first["shared_bytes"] == bgemm_bytes + by_name["itrans_kernel"]["shared_bytes"]
        # Only ITrans's barrier and the one after its global writes are block-wide; from the
        # V copy on, the BGEMM has warp barriers only.
        assert fused.body.count("__syncthreads();") == 2
        v_copy = regex.search(r"= \*\(\w+\*\)\(V_ptr \+ ", fused.body).start()
        assert "__syncthreads" not in fused.body[v_copy:] and "__syncwarp();" in fused.body[v_copy:]
    assert launch == by_name["otrans_kernel"]
    assert len(fused.body) > len(bgemm.body) + len(itrans.body) // 2


def run_nvcc() -> str | None:
    try:
        return find_nvcc()
    except NvccNotFound:
        return None


@pytest.mark.nvcc
@pytest.mark.skipif(run_nvcc() is None, reason="nvcc not found")
@pytest.mark.parametrize("name", REAL)
@pytest.mark.parametrize("fusion", [f for f in FUSIONS if f != "none"])  # none: TVM's own source
def test_reconstructed_source_compiles(tmp_path: Path, name: str, fusion: str) -> None:
    out = reconstruct(*load(name), Options(fusion))
    path = tmp_path / f"{name}-{fusion}.cu"
    path.write_text(out.source)
    # TVM's preamble defines helpers most kernels never call (#177-D, unused).
    args = [run_nvcc(), "-std=c++17", "-diag-suppress=177", "-c", "-o", "/dev/null", str(path),
            "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_render_of_a_fused_source_splits_again() -> None:
    fused, _ = mini_fuse(fuse_shmem)
    cuda = split_kernels(MINI)
    again = split_kernels(render_source(CudaSource(cuda.preamble, (fused,))))
    assert again.kernels == (fused,)
