"""The reconstructor on fresh TVM output for every (dtype, m, TB_M, fusion), compiled by nvcc."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict

import pytest

from wino_tvm.kernels.pkf.codegen import generate
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.kernels.pkf.reconstructor.barriers import barrier_sites
from wino_tvm.kernels.pkf.reconstructor.cblocks import find_loops
from wino_tvm.kernels.pkf.reconstructor.cexpr import compile_int_expr
from wino_tvm.kernels.pkf.reconstructor.full import FULL_MARK
from wino_tvm.kernels.pkf.reconstructor.input_pipeline import PIPELINE_MARK
from wino_tvm.kernels.pkf.reconstructor.pipeline import FUSIONS, Options, reconstruct
from wino_tvm.kernels.pkf.reconstructor.source import split_kernels
from wino_tvm.kernels.pkf.reconstructor.whole_tiles import WHOLE_TILES_MARK
from wino_tvm.kernels.pkf.schedule import scheduled_module
from wino_tvm.workload import Conv2dWorkload

# N=2 and odd H/W: padded tiles per image and edge tiles; C != K and two channel chunks.
SHAPE = (2, 11, 13, 32, 48)
PROTOTYPES = [(d, m, tb_m) for d in ("fp16", "int8") for m in (2, 4) for tb_m in (16, 32)]
# The B fragments straight from global memory (no U slice in shared memory): one of each dtype.
U_L2 = [("fp16", 2, 16), ("int8", 4, 32)]
CASES = [(*p, f) for p in PROTOTYPES for f in FUSIONS]
# With the whole epilogue (bias, residual, relu) in OTrans: every dtype and m, TB_M = 16.
EPILOGUE = ("bias", "residual", "relu")
EPILOGUE_CASES = [(d, m, 16, f) for d in ("fp16", "int8") for m in (2, 4) for f in FUSIONS]
# int8 inputs with an fp16 or int8 y (divided by y_scale): m=2 int8 y with the epilogue, m=4 fp16.
SCALED_OUT = {(2, "int8"): EPILOGUE, (4, "fp16"): ()}
SCALED_CASES = [(m, out, f) for m, out in SCALED_OUT for f in FUSIONS]
# Persistent full kernels need one channel chunk (tb_k = C): C=64 here, three K blocks.
PERSIST_SHAPE = (2, 11, 13, 64, 48)
PERSIST_CASES = [(d, m, ep, 1) for d in ("fp16", "int8") for m in (2, 4) for ep in ((), EPILOGUE)
                 if not ep or (d, m) == ("fp16", 2)]
# Warp groups sharing U (PkfConfig.groups): alpha 4 and 6 warps per group, both dtypes.
PERSIST_CASES += [("fp16", 2, EPILOGUE, 2), ("int8", 4, (), 3)]
# Warp groups sharing each tile block, one channel block each (PkfConfig.k_split): the
# three K blocks in one block, both dtypes (m=2: whole input tiles).
SPLIT_CASES = [("fp16", EPILOGUE), ("int8", ())]
K_SPLIT = 3
# M staged in rounds (PkfConfig.m_rounds), K=64 and C=32: (dtype, m, knobs, epilogue). int8
# with U from L2 (fragment order), two channel chunks and ptxas told 3 blocks per SM; int8 m=4
# (alpha 6); fp16 with A^T in registers, the epilogue and 4 rounds; a persistent fp16 kernel.
ROUNDS_SHAPE = (2, 11, 13, 32, 64)
ROUNDS_CASES = [
    ("int8", 2, dict(tb_n=64, tb_k=16, u_l2=True, m_rounds=2, min_blocks=3), ()),
    ("int8", 4, dict(tb_n=32, tb_k=32, m_rounds=2), ()),
    ("fp16", 2, dict(tb_n=64, tb_k=32, ot_channels=2, m_rounds=4), EPILOGUE),
    ("fp16", 2, dict(tb_n=32, tb_k=32, persist=True, m_rounds=2), ()),
]
# The epilogue and scaled-output variants take two channels per OTrans thread (vectorised M
# loads and y stores), the others one.
OT_CHANNELS_EPILOGUE = 2
NVCC = ["nvcc", "-std=c++17", "-O3", "-c", "-gencode", "arch=compute_80,code=sm_80",
        "-gencode", "arch=compute_90,code=sm_90", "-diag-suppress=177,1046"]


@pytest.fixture(scope="module")
def rebuilt():
    out = {}
    variants = [(p, u_smem, (), "") for p in PROTOTYPES
                for u_smem in ((True, False) if p in U_L2 else (True,))]
    variants += [((d, m, tb_m), True, EPILOGUE, "") for d, m, tb_m, f in EPILOGUE_CASES
                 if f == FUSIONS[0]]
    variants += [(("int8", m, 16), True, epilogue, y) for (m, y), epilogue in SCALED_OUT.items()]
    for (dtype, m, tb_m), u_smem, epilogue, y_dtype in variants:
        wl = Conv2dWorkload(*SHAPE, dtype=dtype, m=m, epilogue=epilogue, out=y_dtype)
        # The schedules do not depend on the fusion: one prototype serves all five.
        oc = OT_CHANNELS_EPILOGUE if epilogue or y_dtype else 1
        proto = generate(scheduled_module(
            wl, PkfConfig(tb_m=tb_m, u_l2=not u_smem, ot_channels=oc)))
        launches = [asdict(k) for k in proto.launches]
        for fusion in FUSIONS:
            cfg = PkfConfig(tb_m=tb_m, fusion=fusion, u_l2=not u_smem, ot_channels=oc)
            key = (dtype, m, tb_m, fusion, *([] if u_smem else ["ul2"]),
                   *(["ep"] if epilogue else []), *([f"out_{y_dtype}"] if y_dtype else []))
            options = Options(fusion, u_rows=wl.alpha * wl.alpha * wl.k)
            out[key] = (wl, cfg, reconstruct(proto.source, launches, options))
    for dtype, m, epilogue, groups in PERSIST_CASES:
        wl = Conv2dWorkload(*PERSIST_SHAPE, dtype=dtype, m=m, epilogue=epilogue)
        cfg = PkfConfig(16, 16, 64, fusion="full", persist=True, groups=groups,
                           ot_channels=OT_CHANNELS_EPILOGUE if epilogue else 1)
        proto = generate(scheduled_module(wl, cfg))
        launches = [asdict(k) for k in proto.launches]
        out[(dtype, m, 16, "full", "pb", f"g{groups}", *(["ep"] if epilogue else []))] = (
            wl, cfg, reconstruct(proto.source, launches, Options(
                "full", persist=True, groups=groups, input_pipeline=cfg.pipelines_input(wl))))
    for dtype, epilogue in SPLIT_CASES:
        wl = Conv2dWorkload(*PERSIST_SHAPE, dtype=dtype, m=2, epilogue=epilogue)
        cfg = PkfConfig(16, 16, 64, fusion="full", persist=True, k_split=K_SPLIT,
                           ot_channels=OT_CHANNELS_EPILOGUE if epilogue else 1)
        proto = generate(scheduled_module(wl, cfg))
        launches = [asdict(k) for k in proto.launches]
        out[(dtype, 2, 16, "full", "pb", f"ks{K_SPLIT}", *(["ep"] if epilogue else []))] = (
            wl, cfg, reconstruct(proto.source, launches, Options(
                "full", persist=True, k_split=K_SPLIT, input_pipeline=cfg.pipelines_input(wl))))
    for i, (dtype, m, knobs, epilogue) in enumerate(ROUNDS_CASES):
        wl = Conv2dWorkload(*ROUNDS_SHAPE, dtype=dtype, m=m, epilogue=epilogue)
        cfg = PkfConfig(tb_m=16, fusion="full", **knobs)
        cfg.validate(wl)
        proto = generate(scheduled_module(wl, cfg))
        options = Options("full", persist=cfg.persist, input_pipeline=cfg.pipelines_input(wl),
                          u_rows=wl.alpha * wl.alpha * wl.k, min_blocks=cfg.min_blocks)
        out[("rounds", i)] = (wl, cfg, reconstruct(
            proto.source, [asdict(k) for k in proto.launches], options))
    return out


def _accesses(name: str, body: str) -> bool:
    """body indexes name, scalar (`name[i]`) or vectorised (`*(half2*)(name + i)`)."""
    return re.search(rf"(?<![\w.]){name}(?:\[| \+ )", body) is not None


def _stores_scalar_y(body: str) -> bool:
    return re.search(r"^\s*y_ptr\[", body, re.M) is not None


def _body(source: str, kernel: str) -> str:
    bounds = r"__launch_bounds__\(\d+(?:, \d+)?\)"
    head = re.search(rf'^extern "C" __global__ void {bounds} {kernel}\(.*\{{$', source, re.M)
    return source[head.end(): source.index("\n}\n", head.end())]


@pytest.mark.parametrize(("dtype", "m", "tb_m", "fusion"), CASES)
def test_forward_kernels(rebuilt, dtype, m, tb_m, fusion):
    wl, cfg, r = rebuilt[(dtype, m, tb_m, fusion)]
    # One channel per OTrans thread: y stored one element at a time.
    assert _stores_scalar_y(_body(r.source, r.forward_launches[-1]["name"]))
    _check_forward(wl, cfg, r, dtype, fusion)


@pytest.mark.parametrize(("dtype", "m", "tb_m", "fusion"), [(*p, f) for p in U_L2 for f in FUSIONS])
def test_forward_kernels_b_from_global(rebuilt, dtype, m, tb_m, fusion):
    wl, cfg, r = rebuilt[(dtype, m, tb_m, fusion, "ul2")]
    # No copy of U to shared memory (the fragment-ordered loads read `*(const int2*)`).
    assert not re.search(r"= \*\(\w+\*\)\(U_ptr \+", r.source)
    weight = [launch["name"] for launch in r.weight_launches]
    gemm = next(k["name"] for k in r.forward_launches if "mma_sync" in _body(r.source, k["name"]))
    loads = _body(r.source, gemm)
    # int8 (not fusion none): U in fragment order, one 8-byte load per lane and 16x16 fragment,
    # rewritten from KTrans's U_kc by one more weight kernel (reconstructor.fragment_order).
    ordered = dtype == "int8" and fusion != "none"
    assert ("load_matrix_sync(U_wmma_matrix_b_ptr[0], (&(U_ptr[" in loads) == (not ordered)
    assert ("*(int2*)U_wmma_matrix_b_ptr[0].x = *(const int2*)(U_ptr + " in loads) == ordered
    assert (weight[-1] == "u_fragment_order_kernel") == ordered
    if ordered:
        writer = next(k for k in r.weight_launches if "U_kc" in k["params"])
        assert "U" not in writer["params"] and weight.index(writer["name"]) < len(weight) - 1
        fragments = wl.alpha * wl.alpha * wl.k * wl.c // 256
        assert r.weight_launches[-1]["grid"][0] * 4 >= fragments > (
            r.weight_launches[-1]["grid"][0] - 1) * 4
    _check_forward(wl, cfg, r, dtype, fusion)


@pytest.mark.parametrize(("dtype", "m", "tb_m", "fusion"), EPILOGUE_CASES)
def test_forward_kernels_with_epilogue(rebuilt, dtype, m, tb_m, fusion):
    wl, cfg, r = rebuilt[(dtype, m, tb_m, fusion, "ep")]
    last = r.forward_launches[-1]
    assert {"bias", "residual", "y"} <= set(last["params"])
    body = _body(r.source, last["name"])
    assert _accesses("bias_ptr", body) and _accesses("residual_ptr", body) and "max(" in body
    y_pair = {"fp16": "half2", "int8": "float2"}[dtype]
    assert re.search(rf"\*\({y_pair}\*\)\(y_ptr \+ ", body) and not _stores_scalar_y(body)
    _check_forward(wl, cfg, r, dtype, fusion)


@pytest.mark.parametrize(("dtype", "m", "epilogue", "groups"), PERSIST_CASES)
def test_persistent_full_kernels(rebuilt, dtype, m, epilogue, groups):
    wl, cfg, r = rebuilt[(dtype, m, 16, "full", "pb", f"g{groups}", *(["ep"] if epilogue else []))]
    (launch,) = r.forward_launches
    assert launch["persistent"] and launch["grid"][1] == 48 // 16
    assert launch["block"] == [32, wl.alpha, groups] and cfg.threads(wl) == 32 * wl.alpha * groups
    body = _body(r.source, launch["name"])
    assert re.sub(r"//.*", "", body).count("blockIdx.x") == 1  # only the first tile block
    step = "(int)gridDim.x" + (f" * {groups}" if groups > 1 else "")
    assert f"tile_block += {step};" in body
    # Each group's block barriers are its own named barrier (1 + threadIdx.z); one more after
    # ITrans where its warps transform whole tiles (m=2, reconstructor.whole_tiles).
    whole = WHOLE_TILES_MARK in body
    assert whole == (m == 2)
    assert body.count(f'"bar.sync %0, {32 * wl.alpha};"') == (3 + whole if groups > 1 else 0)
    # Whole tiles here leave the registers for the input pipeline (reconstructor.input_pipeline).
    assert (PIPELINE_MARK in body) == whole == cfg.pipelines_input(wl)
    _check_forward(wl, cfg, r, dtype, "full")


@pytest.mark.parametrize(("dtype", "epilogue"), SPLIT_CASES)
def test_channel_split_full_kernels(rebuilt, dtype, epilogue):
    key = (dtype, 2, 16, "full", "pb", f"ks{K_SPLIT}", *(["ep"] if epilogue else []))
    wl, cfg, r = rebuilt[key]
    (launch,) = r.forward_launches
    assert launch["persistent"] and launch["grid"][1] == 48 // 16 // K_SPLIT
    assert launch["block"] == [32, wl.alpha, K_SPLIT] and cfg.threads(wl) == 32 * 4 * K_SPLIT
    body = _body(r.source, launch["name"])
    # Every use of the channel block is the group's; U and M live in the group's slices.
    assert re.sub(r"//.*", "", body).count("blockIdx.y") == body.count(
        f"(blockIdx.y * {K_SPLIT} + threadIdx.z)") > 0
    assert "group_u" in body and "group_m" in body and "bar.sync" not in body
    assert PIPELINE_MARK in body and cfg.pipelines_input(wl)
    _check_forward(wl, cfg, r, dtype, "full")


@pytest.mark.parametrize(("m", "y_dtype", "fusion"), SCALED_CASES)
def test_forward_kernels_scaled_output(rebuilt, m, y_dtype, fusion):
    epilogue = SCALED_OUT[m, y_dtype]
    wl, cfg, r = rebuilt[("int8", m, 16, fusion, *(["ep"] if epilogue else []), f"out_{y_dtype}")]
    last = r.forward_launches[-1]
    assert "y_scale" in last["params"]
    body = _body(r.source, last["name"])
    assert "/ y_scale_ptr[0]" in body
    y_type = {"int8": "signed char", "fp16": "half"}[y_dtype]
    assert re.search(rf"{re.escape(y_type)}\* __restrict__ y_ptr", r.source)
    # int8: rounded to nearest even and saturated to +-127; y is stored two channels at a time.
    assert re.search(rf"\*\({'char2' if y_dtype == 'int8' else 'half2'}\*\)\(y_ptr \+ ", body)
    otrans = body.split(FULL_MARK)[-1]  # the full kernel's ITrans rounds its int8 input too
    assert ("nearbyintf(" in otrans) == (y_dtype == "int8")
    _check_forward(wl, cfg, r, "int8", fusion)


@pytest.mark.parametrize("case", range(len(ROUNDS_CASES)))
def test_full_kernels_stage_m_in_rounds(rebuilt, case):
    """Round r stores the accumulators of the r-th 1/R of the block's channels, each fragment
    in exactly one round, and its OTrans works on channel block blockIdx.y R + r."""
    wl, cfg, r = rebuilt[("rounds", case)]
    (launch,) = r.forward_launches
    body = _body(r.source, launch["name"])
    rounds = cfg.m_rounds
    staged = body.split(FULL_MARK)[1]
    for k in range(rounds):
        assert f"((((int)blockIdx.y) * {rounds}) + {k})" in staged
    assert "blockIdx.y" not in staged.replace("(((int)blockIdx.y) * ", "")
    # The text after the mark alternates stores and OTrans between block barriers.
    parts = re.split(r"^\s*__syncthreads\(\);$", staged, flags=re.M)[1:]
    stores = [parts[2 * k] for k in range(rounds)]
    fragments = cfg.accumulator_fragments(wl)
    stored = [_fragments_read(text) for text in stores]
    assert all(len(s) == fragments // rounds for s in stored)
    assert set().union(*stored) == set(range(fragments))
    bounds = f"__launch_bounds__({launch['block'][0] * launch['block'][1]}"
    assert (f"{bounds}, {cfg.min_blocks}) {launch['name']}" in r.source) == bool(cfg.min_blocks)
    # The source parses back with them (artifact.py re-splits it to drop barriers).
    full = next(k for k in split_kernels(r.source).kernels if k.name == launch["name"])
    assert full.min_blocks == cfg.min_blocks
    _check_forward(wl, cfg, r, wl.dtype, "full")


def _fragments_read(text: str) -> set[int]:
    """Accumulator fragment indices text reads, its loops run over their whole ranges."""
    loops = find_loops(text)
    found = set()
    for match in re.finditer(r"M_wmma_accumulator_ptr\[([^\]]+)\]", text):
        inside = [lp for lp in loops if lp.contains(match.start())]
        index = compile_int_expr(match[1])
        for values in itertools.product(*(range(lp.extent) for lp in inside)):
            found.add(index(dict(zip((lp.var for lp in inside), values, strict=True))))
    return found


def _check_forward(wl, cfg, r, dtype, fusion):
    forward = [launch["name"] for launch in r.forward_launches]
    expected = {"none": 3, "syncfree": 3, "shmem": 2, "llc": 2, "full": 1}[fusion]
    assert len(forward) == expected
    gemm = next(k for k in forward if "mma_sync" in _body(r.source, k))
    fused = _body(r.source, gemm)
    if fusion in ("shmem", "full"):
        assert "V_ptr" not in fused  # V never goes through global memory
    if fusion == "full":
        params = set(r.forward_launches[0]["params"])
        assert params == ({"x", "U", "y"} | ({"U_scale"} if dtype == "int8" else set())
                          | set(wl.forward_inputs))
        assert "M_ptr" not in fused and "mma_sync" in fused and _accesses("y_ptr", fused)
        # U staged per block goes through cp.async (reconstructor.async_copy).
        assert ("cp.async.cg.shared.global" in fused) == (not cfg.u_l2 and not cfg.persist)
        # Block barriers only around the accumulator hand-off (and, persistent, before the
        # next tile block's V overwrites M; with whole-tile ITrans, m=2, after ITrans and,
        # with several channel chunks, before its transforms too); with warp groups those are
        # the groups' named barriers, and one block barrier follows U's staging. Whole tiles
        # need 2 trips of the tile loop (32 lanes of 8 fp16 or 4 int8 channels), chunked at
        # most 256 bytes of tiles per warp (one fp16 round, 4 int8 rounds).
        channels, tile_bytes = {"fp16": (8, 256), "int8": (4, 64)}[dtype]
        trips, chunked = cfg.tb_m * cfg.tb_k // (32 * channels), cfg.tb_k < wl.c
        rounds = -(-trips // wl.alpha)
        whole = WHOLE_TILES_MARK in fused
        assert whole == (wl.m == 2 and trips >= 2 and (not chunked or rounds * tile_bytes <= 256))
        whole_barriers = (2 if chunked else 1) if whole else 0
        sites = [s.call for s in barrier_sites(r.source) if s.kernel == gemm]
        assert sites.count("__syncthreads") == (
            1 if cfg.groups > 1 else 2 * cfg.m_rounds + cfg.persist + whole_barriers)
        assert r.forward_launches[0]["shared_bytes"] == cfg.smem_bytes(wl)
    if fusion != "none":
        # The channel loop (or the body, with one chunk) up to the accumulator store: the
        # BGEMM part must hold no block barrier but whole tiles' two per chunk; LLC's ITrans
        # part (before the V copy that reads V back from L2) keeps its own.
        loops = [lp for lp in find_loops(fused) if "mma_sync" in fused[lp.start:lp.end]]
        start, end = (loops[0].start, loops[0].end) if loops else (0, len(fused))
        channel_loop = fused[start:end].split("store_matrix_sync")[0]
        if fusion == "llc":
            channel_loop = channel_loop[channel_loop.rindex("V_ptr"):]
        chunked_whole = WHOLE_TILES_MARK in fused and cfg.tb_k < wl.c
        assert channel_loop.count("__syncthreads") == (2 if chunked_whole else 0)


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_every_variant_compiles_sm80_sm90(rebuilt, tmp_path):
    def build(item):
        key, (_, _, r) = item
        src = tmp_path / ("_".join(map(str, key)) + ".cu")
        src.write_text(r.source)
        proc = subprocess.run([*NVCC, "-o", str(src.with_suffix(".o")), str(src)],
                              capture_output=True, text=True)
        return key, proc.returncode, proc.stderr[-2000:]

    with ThreadPoolExecutor(2) as pool:
        failures = [(k, err) for k, rc, err in pool.map(build, rebuilt.items()) if rc]
    assert not failures, failures[:2]
