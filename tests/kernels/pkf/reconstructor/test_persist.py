"""Persistent full kernels (reconstructor.persist, PkfConfig.persist) on fresh TVM output."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import asdict

import pytest
from stored_sources import full_kernel, stored

from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.errors import WinoError
from wino_tvm.kernels import parse_config
from wino_tvm.kernels.pkf.codegen import generate
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.kernels.pkf.reconstructor.errors import ReconstructError
from wino_tvm.kernels.pkf.reconstructor.input_pipeline import (
    NEXT_TILE_BLOCK,
    PIPELINE_MARK,
    pipeline_input_loads,
)
from wino_tvm.kernels.pkf.reconstructor.persist import TILE_BLOCK
from wino_tvm.kernels.pkf.reconstructor.pipeline import Options, reconstruct
from wino_tvm.kernels.pkf.reconstructor.whole_tiles import WHOLE_TILES_MARK
from wino_tvm.kernels.pkf.schedule import scheduled_module
from wino_tvm.workload import Conv2dWorkload

# One channel chunk (tb_k = C), three output-channel blocks (blockIdx.y), odd H/W.
WL = Conv2dWorkload(2, 11, 13, 64, 48, dtype="fp16", m=2)
CFG = PkfConfig(16, 16, 64, fusion="full", persist=True)


@pytest.fixture(scope="module")
def prototype() -> tuple[str, list[dict]]:
    proto = generate(scheduled_module(WL, CFG))
    return proto.source, [asdict(k) for k in proto.launches]


def test_persistent_kernel_is_the_kernel_in_a_loop(prototype) -> None:
    source, launches = prototype
    plain = reconstruct(source, launches, Options("full", async_u=False))
    persistent = reconstruct(source, launches, Options("full", persist=True))
    (launch,) = persistent.forward_launches
    assert launch.pop("persistent") is True
    assert launch == plain.forward_launches[0]
    body = full_kernel(persistent.source).body
    # U is staged before the loop, once; blockIdx.x only seeds the tile block.
    staging, loop = body.split(f"  while ({TILE_BLOCK} < {launch['grid'][0]}) {{\n")
    assert "U_ptr" in staging and "U_ptr" not in loop
    assert re.sub(r"//.*", "", body).count("blockIdx.x") == 1
    assert f"int {TILE_BLOCK} = (int)blockIdx.x;" in staging
    assert loop.endswith(f"    __syncthreads();\n    {TILE_BLOCK} += (int)gridDim.x;\n  }}\n")
    # Everything else is the plain kernel's text, blockIdx.x renamed and indented once more.
    decl, hoisted = staging.split("\n", 1)
    hoisted = hoisted.split("  // Persistent blocks:")[0]
    plain_body = full_kernel(plain.source).body
    assert plain_body.count(hoisted) == 1 and plain_body.startswith(decl + "\n")
    rest = plain_body.replace(hoisted, "", 1).removeprefix(decl + "\n")
    inner = "".join(line[2:] if line.strip() else line
                    for line in loop.splitlines(keepends=True)[:-3])
    assert inner == rest.replace("blockIdx.x", TILE_BLOCK)

def test_only_the_full_kernel_with_one_u_slice_persists(prototype) -> None:
    source, launches = prototype
    with pytest.raises(ReconstructError, match="persistent blocks need fusion full"):
        reconstruct(source, launches, Options("shmem", persist=True))
    # The stored prototype has four channel chunks: U is restaged inside the channel loop.
    with pytest.raises(ReconstructError, match=r"persist_blocks: .* per channel chunk"):
        reconstruct(*stored("fp16-m2"), Options("full", persist=True))


def test_u_laid_out_before_v_is_refused() -> None:
    # TVM places the smaller staging buffer first: with tb_n < tb_m U starts at byte 0, where
    # the M slice goes.
    wl = Conv2dWorkload(1, 8, 8, 64, 16, dtype="int8", m=2)
    proto = generate(scheduled_module(wl, PkfConfig(32, 16, 64, fusion="full")))
    launches = [asdict(k) for k in proto.launches]
    with pytest.raises(ReconstructError, match="U is staged from byte 0, inside the M slice"):
        reconstruct(proto.source, launches, Options("full", persist=True))


@pytest.mark.parametrize(("changes", "reason"), [
    ({"fusion": "shmem"}, "needs fusion full"),
    ({"u_l2": True}, "U in shared memory"),
    ({"tb_k": 32}, "tb_k = C=64"),
    ({"tb_n": 48}, "M slice (53248 B) within the V staging (36864 B)"),
    ({"tb_m": 32}, "tb_n >= tb_m"),
])
def test_persist_where_it_cannot_apply_is_refused(changes: dict, reason: str) -> None:
    cfg = CFG.with_(**changes)
    assert not cfg.can_persist(WL)
    with pytest.raises(WinoError, match=re.escape(reason)):
        cfg.validate(WL, KNOWN_DEVICES["h100"])
    cfg.with_(persist=False).validate(WL, KNOWN_DEVICES["h100"])


def test_persist_is_in_the_name_and_keeps_u_free_of_m() -> None:
    name = CFG.name(WL)
    assert name.endswith("-full-vec16-pad16-pb")
    assert parse_config(name) == ({"dtype": "fp16", "accum": "fp32", "m": 2}, CFG)
    assert parse_config(name.removesuffix("-pb"))[1] == CFG.with_(persist=False)
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config(name + "-ul2")
    # Widened fp32 M rows (32 + 8 floats) outgrow V's staging (144-byte rows): without persist
    # they may reach into U's, which each block stages anew; with it U must stay intact.
    wl = Conv2dWorkload(1, 960, 960, 64, 64, m=2)
    wide = PkfConfig(32, 32, 64, fusion="full")
    assert wide.m_row_elems(wl) == 32 + 8
    assert wide.with_(persist=True).m_row_elems(wl) == 32 + 4
    assert wide.with_(persist=True).smem_bytes(wl) == wide.smem_bytes(wl)


def test_warp_groups_share_u_and_stage_their_own_v(prototype) -> None:
    source, launches = prototype
    single = reconstruct(source, launches, Options("full", persist=True))
    grouped = reconstruct(source, launches, Options("full", persist=True, groups=3))
    (one,), (three,) = single.forward_launches, grouped.forward_launches
    v_bytes = WL.alpha**2 * CFG.tb_m * (64 * 2 + CFG.pad)  # each group's V/M slice
    assert three["block"] == [32, 4, 3]
    assert three["shared_bytes"] == one["shared_bytes"] + 2 * v_bytes
    assert three["shared_bytes"] == CFG.with_(groups=3).smem_bytes(WL)
    assert "__launch_bounds__(384) winograd_full_kernel" in grouped.source
    head = f"  while ({TILE_BLOCK} < {one['grid'][0]}) {{\n"
    staging_1, loop_1 = full_kernel(single.source).body.split(head)
    staging_3, loop_3 = full_kernel(grouped.source).body.split(head)
    # U's staging: its trips dealt round-robin to the groups, then a block barrier.
    assert re.search(r"for \(int (\w+) = 0; \1 < \d+; \+\+\1\) \{\n *if \(\1 % 3 != "
                     r"\(int\)threadIdx\.z\) \{\n *continue;\n", staging_3)
    assert "  __syncthreads();" in staging_3 and "  __syncwarp();" in staging_1
    assert f"int {TILE_BLOCK} = (int)blockIdx.x * 3 + (int)threadIdx.z;" in staging_3
    assert f"uchar* group_shmem = buf_dyn_shmem_ptr + ((int)threadIdx.z == 0 ? 0 : " \
           f"{one['shared_bytes'] - v_bytes} + (int)threadIdx.z * {v_bytes});" in staging_3
    # The loop: only U's reads stay on the block's base; undoing the group's slice, barriers
    # and step gives the one-group loop line for line.
    for line in loop_3.splitlines():
        assert ("buf_dyn_shmem_ptr" in line) == ("load_matrix_sync(U_shared" in line)
    barrier = 'asm volatile("bar.sync %0, 128;" :: "r"((int)threadIdx.z + 1) : "memory");'
    undone = (loop_3.replace("group_shmem", "buf_dyn_shmem_ptr")
              .replace(barrier, "__syncthreads();")
              .replace("(int)gridDim.x * 3", "(int)gridDim.x"))
    # After ITrans (whole tiles: reconstructor.whole_tiles), around the M store, at the end.
    assert loop_3.count(barrier) == 4 and undone == loop_1


def test_warp_groups_need_persistent_blocks_and_fit_a_block(prototype) -> None:
    source, launches = prototype
    with pytest.raises(ReconstructError, match="2 warp groups need persistent blocks"):
        reconstruct(source, launches, Options("full", groups=2))
    with pytest.raises(ReconstructError, match="9 groups of 128 threads do not fit"):
        reconstruct(source, launches, Options("full", persist=True, groups=9))
    for bad, message in ((CFG.with_(persist=False, groups=2), "groups=2 needs persist (pb)"),
                         (CFG.with_(groups=9), "groups=9 is not one of 1, 2, 3, 4, 5, 6, 7, 8"),
                         (CFG.with_(groups=0), "groups=0 is not one of 1, 2")):
        with pytest.raises(WinoError, match=re.escape(message)):
            bad.validate(WL)
    big = CFG.with_(tb_m=32, tb_n=64, groups=2)  # U 147 KB + two 74 KB V slices
    with pytest.raises(WinoError, match="shared memory 294912 B exceeds"):
        big.validate(Conv2dWorkload(1, 64, 64, 64, 64, m=2, accum="fp16"), KNOWN_DEVICES["h100"])


def test_groups_are_in_the_name() -> None:
    cfg = CFG.with_(groups=4)
    name = cfg.name(WL)
    assert name.endswith("-pb-g4") and parse_config(name)[1] == cfg
    for bad in (name.replace("-g4", "-g1"), name.replace("-pb-g4", "-g4"), name + "-ul2",
                name.replace("-g4", "-gx")):
        with pytest.raises(WinoError, match="not a wino-tvm config name"):
            parse_config(bad)


def test_channel_split_groups_share_the_tile_block(prototype) -> None:
    source, launches = prototype
    single = reconstruct(source, launches, Options("full", persist=True))
    split = reconstruct(source, launches, Options("full", persist=True, k_split=3))
    (one,), (three,) = single.forward_launches, split.forward_launches
    assert three["block"] == [32, 4, 3] and three["grid"] == [one["grid"][0], 1, 1]
    assert three["shared_bytes"] == CFG.with_(k_split=3).smem_bytes(WL)
    assert "__launch_bounds__(384) winograd_full_kernel" in split.source
    v_bytes = WL.alpha**2 * CFG.tb_m * (64 * 2 + CFG.pad)
    u_bytes = one["shared_bytes"] - v_bytes
    m_bytes = WL.alpha**2 * CFG.tb_m * CFG.m_row_elems(WL) * 4  # fp32 accumulators
    assert three["shared_bytes"] == max(v_bytes, 3 * m_bytes) + 3 * u_bytes
    body_1, body_3 = full_kernel(single.source).body, full_kernel(split.source).body
    # ITrans's 4 trips go to the first 4 of the 12 warps; the others wait at its barrier.
    warp = "(((int)threadIdx.z) * 4 + ((int)threadIdx.y))"
    assert f"if ({warp} < 4) {{" in body_3 and f"= 0 + {warp};" in body_3
    # From the MMA on, the kernel is the single group's with the group's U and M slices and
    # channel block: U's reads, M's stores and OTrans's reads move, V's reads stay.
    mma_1, mma_3 = (b[b.index("__syncthreads();", b.index(WHOLE_TILES_MARK)):]
                    for b in (body_1, body_3))
    for line in mma_3.splitlines():
        if "buf_dyn_shmem_ptr" in line:
            assert "load_matrix_sync(V_shared" in line
    undone = (mma_3.replace("group_u", "buf_dyn_shmem_ptr").replace("group_m", "buf_dyn_shmem_ptr")
              .replace("(blockIdx.y * 3 + threadIdx.z)", "blockIdx.y"))
    assert undone == mma_1
    # U is staged by each group's own warps into its own slice, after every group's M slice.
    assert (f"uchar* group_u = buf_dyn_shmem_ptr + ({max(v_bytes, 3 * m_bytes) - v_bytes} + "
            f"(int)threadIdx.z * {u_bytes});") in body_3
    assert f"uchar* group_m = buf_dyn_shmem_ptr + (int)threadIdx.z * {m_bytes};" in body_3


def test_channel_split_needs_persistent_blocks_and_whole_k_blocks(prototype) -> None:
    source, launches = prototype
    with pytest.raises(ReconstructError, match="a channel split over 3 warp groups needs "
                                               "persistent blocks"):
        reconstruct(source, launches, Options("full", k_split=3))
    with pytest.raises(ReconstructError, match="a multiple of 2 channel blocks"):
        reconstruct(source, launches, Options("full", persist=True, k_split=2))
    with pytest.raises(ReconstructError, match="warp groups and a channel split do not combine"):
        reconstruct(source, launches, Options("full", persist=True, groups=3, k_split=3))
    for bad, message in (
            (CFG.with_(persist=False, k_split=3), "k_split=3 needs persist (pb)"),
            (CFG.with_(k_split=2), "k_split=2 needs m=2 (whole input tiles), K=48 a multiple of "
                                   "tb_n x k_split"),
            (CFG.with_(groups=3, k_split=3), "groups=3 does not go with k_split"),
            (CFG.with_(k_split=0), "k_split=0 is not one of 1, 2")):
        with pytest.raises(WinoError, match=re.escape(message)):
            bad.validate(WL)
    with pytest.raises(WinoError, match="k_split=3"):
        CFG.with_(k_split=3).validate(Conv2dWorkload(*WL.shape_dict().values(), m=4))


def test_channel_split_is_in_the_name_and_fits_the_h100() -> None:
    cfg = CFG.with_(k_split=3, ot_channels=2)
    name = cfg.name(WL)
    assert name.endswith("-pb-ks3-oc2") and parse_config(name)[1] == cfg
    for bad in (name.replace("-ks3", "-ks1"), name.replace("-pb-ks3", "-ks3"),
                name.replace("-ks3", "-g2-ks3")):
        with pytest.raises(WinoError, match="not a wino-tvm config name"):
            parse_config(bad)
    # fp16 accumulators, 32 tiles x 2 x 32 channels: V (73,728 B) above two M slices
    # (81,920 B), then two U slices (147,456 B): within the H100's 232,448 B.
    wl = Conv2dWorkload(1, 960, 960, 64, 64, m=2, accum="fp16")
    split = PkfConfig(32, 32, 64, fusion="full", persist=True, k_split=2)
    assert split.smem_bytes(wl) == 229_376 and split.blocks(wl) == 7200
    split.validate(wl, KNOWN_DEVICES["h100"])
    with pytest.raises(WinoError, match="shared memory 294912 B exceeds"):
        split.validate(dataclasses.replace(wl, accum="fp32"), KNOWN_DEVICES["h100"])


def test_input_pipeline_loads_the_next_tile_block_during_the_mma(prototype) -> None:
    source, launches = prototype
    plain = full_kernel(reconstruct(source, launches, Options("full", async_u=False)).source).body
    persistent = reconstruct(source, launches, Options("full", persist=True, input_pipeline=True))
    tiles = persistent.forward_launches[0]["grid"][0]
    body = full_kernel(persistent.source).body
    head, loop = body.split(f"  while ({TILE_BLOCK} < {tiles}) {{\n")
    loads = plain.count("x_ptr")
    # The first tile block's loads before the loop, the next one's in it: one copy each.
    assert loads > 0 and head.count("x_ptr") == loop.count("x_ptr") == loads
    assert PIPELINE_MARK in head and f"if ({TILE_BLOCK} < {tiles}) {{" in head
    arrays = re.findall(r"alignas\(\d+\) half (it_d_local_ptr_\d+)\[\d+\];", head)
    # Declared once, above the loop; the loop's transforms read them.
    assert arrays and all(f"half {a}[" in plain and f"half {a}[" not in loop
                          and f"= {a}[" in loop for a in arrays)
    # In the loop: ITrans's transforms, its barrier, the next loads, then the MMA.
    order = [loop.index(WHOLE_TILES_MARK), loop.index("__syncthreads();"),
             loop.index(f"int {NEXT_TILE_BLOCK} = {TILE_BLOCK} + (int)gridDim.x;"),
             loop.index("x_ptr"), loop.index("mma_sync")]
    assert order == sorted(order)
    assert f"if ({NEXT_TILE_BLOCK} < {tiles}) {{" in loop
    assert f"int {TILE_BLOCK} = {NEXT_TILE_BLOCK};" in loop


def test_input_pipeline_needs_a_persistent_whole_tile_kernel(prototype) -> None:
    source, launches = prototype
    plain = full_kernel(reconstruct(source, launches, Options("full")).source)
    with pytest.raises(ReconstructError, match=r"pipeline_input_loads: expected exactly one "
                                               r"`while \(tile_block < \.\.\.\)` loop, found 0"):
        pipeline_input_loads(plain)
    pipelined = full_kernel(reconstruct(
        source, launches, Options("full", persist=True, input_pipeline=True)).source)
    with pytest.raises(ReconstructError, match="not the tile arrays' loads, then the transforms"):
        pipeline_input_loads(pipelined)


@pytest.mark.parametrize(("name", "pipelines"), [
    # (tile + accumulator registers per thread, of the registers a thread may use)
    ("fp16-fp16-m2-tbm32-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2-oc2", True),  # 128/255
    ("fp16-fp32-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2-oc2", True),  # 128/255
    ("fp16-fp32-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-g3-oc2", True),  # 128/170
    ("int8-int32-m2-tbm16-tbn16-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2", True),  # 48/255
    ("fp16-fp32-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-g4", False),  # 128/128
    ("fp16-fp16-m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16-pb-oc2", False),  # 256/255
    ("fp16-fp16-m2-tbm32-tbn32-tbk64-frag16x16x16-full-vec16-pad16-oc2", False),  # not persistent
])
def test_input_pipeline_where_the_registers_allow(name: str, pipelines: bool) -> None:
    """The H100 A/B's winners and losers (experiments: round_pipeline_ab): the losers
    spilled."""
    precision, cfg = parse_config(name)
    wl = Conv2dWorkload(1, 960, 960, 64, 64, **precision)
    assert cfg.pipelines_input(wl) is pipelines
