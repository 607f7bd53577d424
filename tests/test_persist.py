"""Persistent full kernels (reconstructor.persist, KernelConfig.persist) on fresh TVM output."""

from __future__ import annotations

import re
from dataclasses import asdict

import pytest

from reconstructor.errors import ReconstructError
from reconstructor.persist import TILE_BLOCK
from reconstructor.pipeline import reconstruct
from tests.stored_sources import full_kernel, stored
from wino_tvm.codegen import generate
from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.errors import WinoError
from wino_tvm.schedule import scheduled_module
from wino_tvm.workload import Conv2dWorkload

# One channel chunk (tb_k = C), three output-channel blocks (blockIdx.y), odd H/W.
WL = Conv2dWorkload(2, 11, 13, 64, 48, dtype="fp16", m=2)
CFG = KernelConfig(16, 16, 64, fusion="full", persist=True)


@pytest.fixture(scope="module")
def prototype() -> tuple[str, list[dict]]:
    proto = generate(scheduled_module(WL, CFG))
    return proto.source, [asdict(k) for k in proto.launches]


def test_persistent_kernel_is_the_kernel_in_a_loop(prototype) -> None:
    source, launches = prototype
    plain = reconstruct(source, launches, "full", async_u=False)
    persistent = reconstruct(source, launches, "full", persist=True)
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
        reconstruct(source, launches, "shmem", persist=True)
    # The stored prototype has four channel chunks: U is restaged inside the channel loop.
    with pytest.raises(ReconstructError, match=r"persist_blocks: .* per channel chunk"):
        reconstruct(*stored("fp16-m2"), "full", persist=True)


def test_u_laid_out_before_v_is_refused() -> None:
    # TVM places the smaller staging buffer first: with tb_n < tb_m U starts at byte 0, where
    # the M slice goes.
    wl = Conv2dWorkload(1, 8, 8, 64, 16, dtype="int8", m=2)
    proto = generate(scheduled_module(wl, KernelConfig(32, 16, 64, fusion="full")))
    launches = [asdict(k) for k in proto.launches]
    with pytest.raises(ReconstructError, match="U is staged from byte 0, inside the M slice"):
        reconstruct(proto.source, launches, "full", persist=True)


@pytest.mark.parametrize(("changes", "reason"), [
    ({"fusion": "shmem"}, "needs fusion full"),
    ({"u_smem": False}, "U in shared memory"),
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
    assert KernelConfig.parse(name) == ({"dtype": "fp16", "accum": "fp32", "m": 2}, CFG)
    assert KernelConfig.parse(name.removesuffix("-pb"))[1] == CFG.with_(persist=False)
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        KernelConfig.parse(name + "-ul2")
    # Widened fp32 M rows (32 + 8 floats) outgrow V's staging (144-byte rows): without persist
    # they may reach into U's, which each block stages anew; with it U must stay intact.
    wl = Conv2dWorkload(1, 960, 960, 64, 64, m=2)
    wide = KernelConfig(32, 32, 64, fusion="full")
    assert wide.m_row_elems(wl) == 32 + 8
    assert wide.with_(persist=True).m_row_elems(wl) == 32 + 4
    assert wide.with_(persist=True).smem_bytes(wl) == wide.smem_bytes(wl)


def test_warp_groups_share_u_and_stage_their_own_v(prototype) -> None:
    source, launches = prototype
    single = reconstruct(source, launches, "full", persist=True)
    grouped = reconstruct(source, launches, "full", persist=True, groups=3)
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
        reconstruct(source, launches, "full", groups=2)
    with pytest.raises(ReconstructError, match="9 groups of 128 threads do not fit"):
        reconstruct(source, launches, "full", persist=True, groups=9)
    for bad in (CFG.with_(persist=False, groups=2), CFG.with_(groups=9), CFG.with_(groups=0)):
        with pytest.raises(WinoError, match=r"groups=-?\d+: warp groups are 1, or 2 and more "
                                            r"with persist \(pb\)"):
            bad.validate(WL)
    big = CFG.with_(tb_m=32, tb_n=64, groups=2)  # U 147 KB + two 74 KB V slices
    with pytest.raises(WinoError, match="shared memory 294912 B exceeds"):
        big.validate(Conv2dWorkload(1, 64, 64, 64, 64, m=2, accum="fp16"), KNOWN_DEVICES["h100"])


def test_groups_are_in_the_name() -> None:
    cfg = CFG.with_(groups=4)
    name = cfg.name(WL)
    assert name.endswith("-pb-g4") and KernelConfig.parse(name)[1] == cfg
    for bad in (name.replace("-g4", "-g1"), name.replace("-pb-g4", "-g4"), name + "-ul2",
                name.replace("-g4", "-gx")):
        with pytest.raises(WinoError, match="not a wino-tvm config name"):
            KernelConfig.parse(bad)
