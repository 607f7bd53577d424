"""Tensor Core schedules -> CUDA: kernels, WMMA calls, launch shapes, nvcc, refused configs."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from tvm import IRModule, s_tir

from wino_tvm.device import KNOWN_DEVICES, shared_wavefronts
from wino_tvm.errors import WinoError
from wino_tvm.kernels import parse_config
from wino_tvm.kernels.pkf.codegen import generate
from wino_tvm.kernels.pkf.compute import winograd_stages
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.kernels.pkf.reconstructor.cexpr import compile_int_expr
from wino_tvm.kernels.pkf.reconstructor.text import find_copies
from wino_tvm.kernels.pkf.schedule import scheduled_module
from wino_tvm.kernels.pkf.schedule.otrans import schedule_otrans
from wino_tvm.workload import Conv2dWorkload

FRAGMENTS = [(16, 16, 16), (32, 8, 16), (8, 32, 16)]
# Odd H/W exercise edge tiles; N=2 exercises the image index; C != K.
SHAPE = (2, 13, 15, 32, 64)


def _config(frag):
    fm, fn, fk = frag
    return PkfConfig(tb_m=max(16, fm), tb_n=max(16, fn), frag=(fm, fn, fk))


CASES = [(d, m, f) for d in ("fp16", "int8") for m in (2, 4) for f in FRAGMENTS]


@pytest.fixture(scope="module")
def prototypes():
    out = {}
    for dtype, m, frag in CASES:
        wl = Conv2dWorkload(*SHAPE, dtype=dtype, m=m)
        cfg = _config(frag)
        out[(dtype, m, frag)] = (wl, cfg, generate(scheduled_module(wl, cfg), "sm_90"))
    return out


@pytest.mark.parametrize(("dtype", "m", "frag"), CASES)
def test_prototype_kernels_and_wmma(prototypes, dtype, m, frag):
    wl, cfg, proto = prototypes[(dtype, m, frag)]
    names = {k.name for k in proto.launches}
    expected = {"itrans_kernel", "ktrans_kernel", "bgemm_kernel", "otrans_kernel"}
    if dtype == "int8":  # U_scale (absmax per tap and channel), then the quantised U
        expected.add("ktrans_kernel_1")
    assert names == expected
    for name in names:
        head = rf'^extern "C" __global__ void __launch_bounds__\(\d+\) {name}\('
        assert re.search(head, proto.source, re.M)
    shape = ", ".join(str(v) for v in frag)
    for call in ("load_matrix_sync", "mma_sync", "store_matrix_sync", "fill_fragment"):
        assert f"nvcuda::wmma::{call}" in proto.source
    assert f"wmma::accumulator, {shape}, {'float' if dtype == 'fp16' else 'int'}>" in proto.source
    operand = "half" if dtype == "fp16" else "signed char"
    assert f"wmma::matrix_a, {shape}, {operand}, nvcuda::wmma::row_major>" in proto.source
    assert f"wmma::matrix_b, {shape}, {operand}, nvcuda::wmma::col_major>" in proto.source


@pytest.mark.parametrize(("dtype", "m", "frag"), CASES)
def test_sync_free_launch_shapes(prototypes, dtype, m, frag):
    wl, cfg, proto = prototypes[(dtype, m, frag)]
    bgemm = proto.launch("bgemm_kernel")
    # Algorithm 3: blocks over (ntiles/TB_M, K/TB_N), one warp per alpha_w tap column.
    assert bgemm.grid == (wl.ntiles_padded(cfg.tb_m) // cfg.tb_m, wl.k // cfg.tb_n, 1)
    assert bgemm.block == (32, wl.alpha, 1)
    assert bgemm.shared_bytes == cfg.smem_bytes(wl)
    assert bgemm.params == ("M", "U", "V")
    itrans = proto.launch("itrans_kernel")
    # ITrans shares the BGEMM's block shape: what makes the PKF splice possible.
    assert itrans.grid == (bgemm.grid[0], wl.c // cfg.tb_k, 1)
    assert itrans.block == bgemm.block
    assert set(proto.launch("otrans_kernel").params) >= {"M", "y"}


@pytest.mark.parametrize(("dtype", "m", "frag"), CASES)
def test_bgemm_warp_slices_and_barriers(prototypes, dtype, m, frag):
    _, _, proto = prototypes[(dtype, m, frag)]
    body = proto.source.split("bgemm_kernel(", 2)[2]
    body = body[: body.index("\n}\n")]
    # TVM's ThreadSync puts two barriers per reduction step; the reconstructor removes them.
    assert body.count("__syncthreads()") == 2
    stores = re.findall(r"\*\(\w+\*\)\(\(\([\w ]+\*\)buf_dyn_shmem_ptr\) \+ ([^;]*)\) =", body)
    assert len(stores) == 2 and all("threadIdx.y" in s for s in stores)


@pytest.mark.parametrize(("dtype", "m", "frag"), CASES)
def test_itrans_vector_loads(prototypes, dtype, m, frag):
    """The input tile is read with vector loads: 16 bytes (8 halves) for fp16, 4 bytes (4 int8
    channels, the widest TVM 0.27 prints compilable) for int8; alpha^2 of them per group."""
    wl, _, proto = prototypes[(dtype, m, frag)]
    body = proto.source.split("itrans_kernel(", 2)[2]
    body = body[: body.index("\n}\n")]
    vector = {"fp16": "uint4", "int8": "int"}[dtype]
    loads = re.findall(r"\*\((\w+)\*\)\(x_ptr \+", body)
    assert loads and set(loads) == {vector}
    assert len(loads) == wl.alpha * wl.alpha
    assert not re.search(r"= x_ptr\[", body)  # no scalar loads left


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize(("dtype", "m", "frag"), CASES)
def test_prototype_compiles_sm80_sm90(prototypes, tmp_path, dtype, m, frag):
    _, _, proto = prototypes[(dtype, m, frag)]
    src = tmp_path / "proto.cu"
    src.write_text(proto.source)
    result = subprocess.run(
        ["nvcc", "-std=c++17", "-O3", "-c", "-o", str(tmp_path / "proto.o"),
         "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
         "-Xptxas", "-v", str(src)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    # No register spills: the per-thread tiles and fragments must stay in registers.
    assert re.findall(r"(\d+) bytes spill stores", result.stderr) and all(
        v == "0" for v in re.findall(r"(\d+) bytes spill stores", result.stderr)
    )


@pytest.mark.parametrize(
    ("shape", "dtype", "knobs", "reason"),
    [
        ((1, 8, 8, 24, 32), "fp16", {}, "C=24 is not a multiple of 16"),
        ((1, 8, 8, 32, 40), "fp16", {}, "K=40 is not a multiple of tb_n=16"),
        ((1, 8, 8, 32, 32), "fp16", {"tb_m": 24}, "tb_m=24 is not a multiple"),
        ((1, 8, 8, 32, 32), "fp16", {"frag": (8, 8, 16)},
         "frag=8x8x16 is not one of 16x16x16, 32x8x16, 8x32x16"),
        ((1, 8, 8, 48, 32), "fp16", {"tb_k": 32}, "C=48 is not a multiple of tb_k=32"),
        ((1, 8, 8, 32, 32), "fp32", {}, "has no Tensor Core path"),
        ((1, 8, 8, 32, 32), "fp16", {"fusion": "magic"},
         "fusion=magic is not one of none, syncfree, shmem, llc, full"),
        ((1, 8, 8, 256, 256), "fp16", {"tb_m": 128, "tb_n": 128, "tb_k": 64},
         "shared memory"),
    ],
)
def test_refused_configs(shape, dtype, knobs, reason):
    wl = Conv2dWorkload(*shape, dtype=dtype, m=4)
    with pytest.raises(WinoError, match=re.escape(reason)):
        PkfConfig(**knobs).validate(wl, KNOWN_DEVICES["h100"])


def test_config_name_round_trip_b_from_global():
    wl = Conv2dWorkload(1, 8, 8, 32, 64, dtype="fp16", m=4)
    cfg = PkfConfig(tb_n=64, fusion="full", u_l2=True)
    assert cfg.name(wl).endswith("-ul2")
    assert parse_config(cfg.name(wl))[1] == cfg
    # Only the V slice is staged: tb_m rows instead of tb_m + tb_n (full fusion's M slice, which
    # reuses that memory, can still be the larger).
    shmem = cfg.with_(fusion="shmem")
    assert shmem.smem_bytes(wl) * (16 + 64) == shmem.with_(u_l2=False).smem_bytes(wl) * 16


def test_config_name_round_trip():
    wl = Conv2dWorkload(1, 8, 8, 32, 32, dtype="int8", m=2)
    cfg = PkfConfig(tb_m=32, tb_n=8, frag=(32, 8, 16), fusion="llc")
    precision, parsed = parse_config(cfg.name(wl))
    assert parsed == cfg
    assert precision == {"dtype": "int8", "accum": "int32", "m": 2}
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config("fp16-m4")


def test_config_name_round_trip_ot_channels():
    wl = Conv2dWorkload(1, 8, 8, 64, 64, dtype="fp16", m=2)
    cfg = PkfConfig(16, 32, 64, fusion="full", persist=True, groups=2, ot_channels=2)
    assert cfg.name(wl).endswith("-pb-g2-oc2") and parse_config(cfg.name(wl))[1] == cfg
    assert parse_config(cfg.with_(ot_channels=1).name(wl))[1].ot_channels == 1
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config(cfg.with_(ot_channels=1).name(wl) + "-oc1")  # 1 is never written
    with pytest.raises(WinoError, match="ot_channels=4 is not one of 1, 2"):
        cfg.with_(ot_channels=4).validate(wl)


def test_config_name_round_trip_m_rounds_and_min_blocks():
    wl = Conv2dWorkload(1, 8, 8, 64, 64, dtype="int8", m=2)
    cfg = PkfConfig(16, 64, 64, fusion="full", u_l2=True, ot_channels=2, m_rounds=2,
                       min_blocks=4)
    assert cfg.name(wl).endswith("-ul2-oc2-mr2-lb4") and parse_config(cfg.name(wl))[1] == cfg
    cfg.validate(wl, KNOWN_DEVICES["h100"])
    # The rounds' M slice: 32 channels (+ the 16-byte pad in int32) per row instead of 64.
    assert cfg.m_channels == 32 and cfg.m_row_elems(wl) in (36, 40)
    assert cfg.smem_bytes(wl) == 16 * 16 * cfg.m_row_elems(wl) * 4
    base = cfg.with_(m_rounds=1, min_blocks=0).name(wl)
    assert base.endswith("-ul2-oc2")
    for bad in ("-mr1", "-lb0", "-lb4-mr2", "-mr", "-xy2"):  # defaults, order, unknown tokens
        with pytest.raises(WinoError, match="not a wino-tvm config name"):
            parse_config(base + bad)


@pytest.mark.parametrize(("knobs", "reason"), [
    ({"fusion": "shmem", "m_rounds": 2}, "m_rounds=2 needs fusion full"),
    ({"fusion": "full", "m_rounds": 3}, "m_rounds=3"),
    ({"fusion": "full", "tb_n": 16, "m_rounds": 2},
     "m_rounds=2 needs tb_n / m_rounds a multiple of the fragment's N and of ot_channels"),
    ({"fusion": "shmem", "min_blocks": 4}, "min_blocks=4 needs fusion full"),
    ({"fusion": "full", "min_blocks": 1}, "min_blocks=1"),
    ({"fusion": "full", "min_blocks": 17}, "min_blocks=17 is not one of 0, 1, 2"),
    ({"fusion": "full", "min_blocks": 16, "k_split": 2, "persist": True, "tb_k": 64},
     "min_blocks=16 blocks of 256 threads exceed the 2048 threads of an SM"),
])
def test_refused_rounds_and_min_blocks(knobs, reason):
    wl = Conv2dWorkload(1, 8, 8, 64, 64, dtype="int8", m=2)
    with pytest.raises(WinoError, match=re.escape(reason)):
        PkfConfig(**{"tb_n": 64, "tb_k": 64, **knobs}).validate(wl)


def test_unknown_arch_refused():
    wl = Conv2dWorkload(1, 8, 8, 32, 32, dtype="fp16", m=4)
    with pytest.raises(WinoError, match="arch 'sm_70' is not supported"):
        generate(scheduled_module(wl, PkfConfig()), "sm_70")


@pytest.mark.parametrize(("fusion", "work"),
                         [("none", "float"), ("shmem", "half"), ("full", "half")])
def test_fp16_itrans_arithmetic_only_where_specialised(fusion, work):
    """fp16 m=2 ITrans adds in fp16 where the reconstructor specialises it per warp; fusion none
    keeps float32 (its generic code got slower with the fp16 selects)."""
    wl = Conv2dWorkload(1, 8, 8, 32, 32, dtype="fp16", m=2)
    cfg = PkfConfig(tb_m=16, tb_n=16, tb_k=16, fusion=fusion)
    source = generate(scheduled_module(wl, cfg)).source
    start = source.index("itrans_kernel(")
    body = source[start:source.index("\n}\n", start)]
    # The transform's local arrays (after the input tile d): V's work buffers.
    assert set(re.findall(r"alignas\(\d+\) (\w+) \w+_local", body)[1:]) == {work}


def test_otrans_binds_every_tile_layout():
    """Workload.image_tile_stride's rule against TVM itself: OTrans schedules for every grid
    of 1-6 x 1-16 tiles and TB_M 16, 32 (across images where the rule allows, else padded),
    including cropped edge tiles."""
    across = 0
    for tb_m in (16, 32):
        for tiles_h in range(1, 7):
            for tiles_w in range(1, 17):
                wl = Conv2dWorkload(2, 2 * tiles_h - tiles_w % 2, 2 * tiles_w, 32, 64, m=2)
                sch = s_tir.Schedule(IRModule(winograd_stages(wl, tb_m).prim_funcs()))
                schedule_otrans(sch, wl, PkfConfig(tb_m=tb_m, tb_n=32))
                across += wl.image_tile_stride(tb_m) == wl.tiles_per_image
    assert across > 150  # of 192: most layouts put the images back to back


@pytest.mark.parametrize("tb_m", [16, 32])
def test_otrans_m_loads_without_bank_conflicts(tb_m: int) -> None:
    """fp16 M, 32 channels in pairs: each warp's M loads read two tile rows alpha apart, one
    wavefront each (adjacent rows, 80 bytes apart, would take two), and the block's threads
    and trips read every (tile, channel pair) of every tap exactly once."""
    wl = Conv2dWorkload(1, 64, 64, 64, 64, m=2, accum="fp16")
    cfg = PkfConfig(tb_m, 32, 64, fusion="shmem", ot_channels=2)
    assert cfg.ot_row_step(wl) == wl.alpha
    source = generate(scheduled_module(wl, cfg)).source
    start = source.index("otrans_kernel(half* __restrict__ M_ptr, half* __restrict__ y_ptr) {")
    body = source[start:source.index("\n}\n", start)]
    # The OTrans loop: the last before the M loads (the slice's staging copy loop comes first).
    trip_var, trips = re.findall(r"for \(int (\w+) = 0; \w+ < (\d+);", body.split("half2")[0])[-1]
    loads = [compile_int_expr(c.src.index) for c in find_copies(body)
             if c.src.name == "M_shared_dyn_ptr" and c.vtype == "half2"]
    assert len(loads) == wl.alpha ** 2
    row = cfg.m_row_elems(wl)
    for tap, load in enumerate(loads):
        seen = []
        for trip in range(int(trips)):
            for warp in range(wl.alpha):
                offsets = [load({"threadIdx.x": lane, "threadIdx.y": warp, trip_var: trip})
                           for lane in range(32)]
                assert shared_wavefronts([2 * o for o in offsets], 4) == 1
                seen += offsets
        tap_base = tap * tb_m * row
        assert sorted(seen) == [tap_base + t * row + 2 * c for t in range(tb_m) for c in range(16)]


@pytest.mark.parametrize(("dtype", "fusion", "expected"), [
    ("int8", "full", ["U", "U_scale"]),  # V and M stay in shared memory
    ("fp16", "shmem", ["U", "M"]),         # M goes through DRAM to OTrans
    ("fp16", "none", ["V", "U", "M"]),
])
def test_the_host_allocates_only_the_buffers_launches_name(dtype, fusion, expected) -> None:
    from wino_tvm.harness import Launch
    from wino_tvm.kernels.pkf.generate import workspaces

    wl = Conv2dWorkload(1, 8, 8, 16, 32, dtype=dtype, m=2)
    cfg = PkfConfig(16, 32, 16, fusion=fusion)
    scale = ("U_scale",) if dtype == "int8" else ()
    names = {"full": [("x", "U", *scale, "y")], "shmem": [("x", "U", "M"), ("M", "y")],
             "none": [("V", "x"), ("V", "U", "M"), ("M", "y")]}[fusion]
    launches = [Launch(f"k{i}", (1, 1, 1), (32, 1, 1), 0, args)
                for i, args in enumerate([("U", *scale, "w"), *names])]
    assert [ws.name for ws in workspaces(wl, cfg, launches)] == expected
