"""The lane-layout kernel (templates/lane_layout.cu via wino_tvm.kernels.lane): its config's
grammar and checks, the filled source and launches, nvcc (every variant class, no spills) and, on
a GPU, correctness against the harness's float64 reference. TVM-free, so it also runs on the GPU
machine."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from toolchain import (
    assert_correct_on_gpu,
    assert_no_spills,
    gpu_arch,
    needs_nvcc,
    on_gpu,
    variant_fixtures,
)

from wino_tvm.build import main as build_main
from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.errors import WinoError
from wino_tvm.harness import workload_spec, write_artifact
from wino_tvm.kernels import FamilyConfig, parse_config
from wino_tvm.kernels.lane.config import LaneConfig
from wino_tvm.kernels.lane.generate import lane_kernels
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.library import KERNELS_FILE, compile_library
from wino_tvm.runner import compile_check
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
ALL = ("bias", "residual", "relu")


def lane_cfg(tb_n: int = 32, k_split: int = 2, groups: int = 4, tb_k: int = 32,
             stages: int = 2, wgmma: bool = False, tap_split: int = 1,
             tma: bool = False, exchange_own: bool = False, stack: bool = False) -> LaneConfig:
    return LaneConfig(tb_n=tb_n, tb_k=tb_k, wgmma=wgmma, tma=tma, exchange_own=exchange_own,
                      stack=stack, groups=groups, k_split=k_split, stages=stages,
                      tap_split=tap_split)


def fp16(*shape: int, accum: str = "fp16", epilogue: tuple[str, ...] = ()) -> Conv2dWorkload:
    return Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)


def int8(*shape: int, out: str, epilogue: tuple[str, ...] = ()) -> Conv2dWorkload:
    """int8 in, on the lane kernel's fp16 tensor cores."""
    return Conv2dWorkload(*shape, dtype="int8", m=2, accum="fp16", out=out, epilogue=epilogue)


def test_name_round_trips_and_lane_needs_pb() -> None:
    wl, cfg = fp16(1, 224, 224, 64, 64), lane_cfg()
    name = cfg.name(wl)
    assert name == "fp16-fp16-m2-tbm16-tbn32-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-g4-ks2"
    assert parse_config(name) == ({"dtype": "fp16", "accum": "fp16", "m": 2}, cfg)
    assert cfg.FAMILY == "lane" and isinstance(cfg, LaneConfig)
    staged = lane_cfg(stages=3)
    assert parse_config(staged.name(wl))[1] == staged and staged.name(wl).endswith("-st3")
    wg = lane_cfg(stages=3, wgmma=True)
    assert wg.name(wl).endswith("-lane-wg-g4-ks2-st3") and parse_config(wg.name(wl))[1] == wg
    split = lane_cfg(64, 1, stages=3, tap_split=2)
    assert split.name(wl).endswith("-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-g4-st3-ts2")
    assert parse_config(split.name(wl))[1] == split
    tma = lane_cfg(64, 1, stages=3, wgmma=True, tap_split=2, tma=True)
    assert tma.name(wl).endswith("-pb-lane-wg-tma-g4-st3-ts2")
    assert parse_config(tma.name(wl))[1] == tma
    own = lane_cfg(64, 1, wgmma=True, tap_split=2, tma=True, exchange_own=True)
    assert own.name(wl).endswith("-pb-lane-wg-tma-xown-g4-ts2")
    assert parse_config(own.name(wl))[1] == own
    stacked = lane_cfg(64, 1, wgmma=True, tap_split=2, tma=True, stack=True)
    assert stacked.name(wl).endswith("-pb-lane-wg-tma-stack-g4-ts2")
    assert parse_config(stacked.name(wl))[1] == stacked
    # stacking is the lane kernel's knob only
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config("fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-stack")
    # the exchange's place is the lane kernel's knob only
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config("fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-xown")
    # TMA copies are the lane kernel's knob only
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config("fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-tma")
    # the tap split is the lane kernel's knob only
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config("fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-ts2")
    # wgmma is the lane kernel's knob only
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config("fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-wg")
    # patch buffers are the lane kernel's knob only
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config("fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-st3")
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config(name.replace("-pb-lane", "-lane"))
    # g and ks together are the lane kernel's grammar only
    with pytest.raises(WinoError, match="not a wino-tvm config name"):
        parse_config(name.replace("-lane", ""))


@pytest.mark.parametrize("wl, cfg, message", [
    (Conv2dWorkload(1, 56, 56, 64, 64, dtype="int8", m=2), lane_cfg(),
     "lane runs int8 on fp16 tensor cores: it takes accum fp16, not int32"),
    (int8(1, 56, 56, 64, 64, out="int8"), PkfConfig(16, 32, 64, fusion="full"),
     "pkf: int8 with fp16 accumulators runs in the lane (fp16) or f23 (fp32) family: use accum "
     "int32 for the int8 MMA kernels"),
    (Conv2dWorkload(1, 56, 56, 64, 64, dtype="fp16", m=4, accum="fp16"), lane_cfg(),
     "lane takes m=2, not m=4"),
    (fp16(1, 56, 56, 48, 64), lane_cfg(),
     "lane: tb_k=32 channels per staged chunk must divide C=48"),
    (fp16(1, 56, 56, 96, 64), lane_cfg(tb_k=48), "lane: tb_k=48 is not one of 16, 32, 64, 128"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(stages=1), "lane: stages=1 is not one of 2, 3, 4"),
    (fp16(1, 56, 56, 64, 64, accum="fp32"), lane_cfg(),
     "lane: tb_n=32 output channels per warp; with fp32 accumulators one of (16,)"),
    (fp16(1, 56, 56, 64, 96), lane_cfg(),
     "lane: K=96 must be a multiple of tb_n x k_split (32 x 2)"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(16, 4, 4),
     "lane: groups x k_split warps (4 x 4) must be at most 13"),
    (fp16(1, 56, 56, 64, 64, accum="fp32"), lane_cfg(16, 2, 6),
     "lane: groups x k_split warps (6 x 2) must be at most 9"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(16, 0, 4), "lane: k_split=0 is not one of 1, 2, 4"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(0, 2, 4), "lane: tb_n=0 is not one of 16, 32, 64"),
    (fp16(1, 28, 28, 256, 256), lane_cfg(32, 2, 4), "exceeds NVIDIA H100's 232448 B per block"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(16, 2, 6, wgmma=True),
     "lane: wgmma=1 needs groups a multiple of 4"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(exchange_own=True),
     "lane: exchange_own=1 needs tap_split=2"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(64, 1, 4, 32, 2, True, 2, tma=True, exchange_own=True),
     "exceeds NVIDIA H100's 232448 B per block"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(64, 1, tap_split=4),
     "lane: tap_split=4 is not one of 1, 2"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(64, 1, 4, 32, 2, True, 2, stack=True),
     "lane: stack=1 needs tma and groups=4"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(64, 1, 8, 32, 2, True, 2, tma=True, stack=True),
     "lane: stack=1 needs tma and groups=4"),
    (fp16(1, 56, 56, 64, 64, accum="fp32"),
     lane_cfg(32, 1, 4, 64, 2, True, 2, tma=True, exchange_own=True, stack=True),
     "lane: exchange_own=1 is implied by stack: drop it"),
    (fp16(1, 56, 56, 64, 64, accum="fp32"), lane_cfg(64, 1, tap_split=2),
     "lane: tb_n=64 output channels per warp; with fp32 accumulators and tap_split=2 one of "
     "(32,)"),
    (fp16(1, 56, 56, 64, 64), lane_cfg(64, 1, 8, tap_split=2),
     "lane: groups x k_split x tap_split warps (8 x 1 x 2) must be at most 9"),
    (fp16(1, 28, 28, 128, 128), lane_cfg(64, 1, 2, tap_split=2),
     "exceeds NVIDIA H100's 232448 B per block"),
])
def test_problems_name_the_fix(wl: Conv2dWorkload, cfg: FamilyConfig, message: str) -> None:
    problems = "; ".join(cfg.problems(wl, H100))
    assert message in problems


@pytest.mark.parametrize("config, knob, value", [
    # the lane kernel's knobs on the TVM family's config, and another family's on the lane's
    (PkfConfig, "stages", 3), (PkfConfig, "wgmma", True), (PkfConfig, "tma", True),
    (PkfConfig, "tap_split", 2), (PkfConfig, "exchange_own", True), (PkfConfig, "stack", True),
    (LaneConfig, "ot_channels", 2), (LaneConfig, "fusion", "shmem"),
    (LaneConfig, "frag", (16, 16, 16)),
])
def test_a_knob_of_another_family_is_refused(config: type[FamilyConfig], knob: str,
                                             value: object) -> None:
    """A family's config has its own knobs only: no field for another's, and --set names the
    family's knobs and the family that has the knob."""
    with pytest.raises(TypeError):
        config(**{knob: value})
    with pytest.raises(TypeError):
        config().with_(**{knob: value})
    knobs = ", ".join(config.KNOBS)
    with pytest.raises(WinoError, match=rf"--set '{knob}=1': expected KNOB=VALUE with KNOB one "
                                        rf"of the {config.FAMILY} family's {knobs}: {knob} is "
                                        rf"a knob of --family [a-z0-9 /]+$"):
        config.from_settings([f"{knob}=1"])


def test_int8_lane_problem_offers_no_empty_choice() -> None:
    """int32 accumulators have no lane widths: the dtype's problem says so, with no 'one of ()'."""
    wl = Conv2dWorkload(1, 56, 56, 64, 64, dtype="int8", m=2)
    problems = lane_cfg().problems(wl, H100)
    assert any("it takes accum fp16" in p for p in problems)
    assert not any("one of ()" in p for p in problems)


LANE = ["--family", "lane", "--set", "tb_n=32"]


@pytest.mark.parametrize("argv, message", [
    (["--dtype", "int8", *LANE],
     "the lane family does not take int8 with int32 accumulators: use --family pkf"),
    (["--dtype", "int8", "--accum", "fp16", "--m", "4"],
     "int8 with fp16 accumulators runs on fp16 MMAs and takes m=2 only, not m=4"),
    (["--dtype", "int8", "--accum", "fp16", "--m", "4", "--family", "lane"],
     "takes m=2 only, not m=4"),
    (["--dtype", "fp16", "--accum", "fp16", *LANE, "--set", "stages=5"],
     "stages='5': choose one of 2, 3, 4"),
    (["--dtype", "fp16", "--accum", "fp16", *LANE, "--set", "stack=1", "--set", "tma=0"],
     "lane: stack=1 needs tma and groups=4"),
    (["--dtype", "fp16", "--accum", "fp16", *LANE, "--set", "tma=1", "--arch", "sm_80"],
     "uses wgmma or TMA, which run on sm_90 GPUs (H100, H200), not sm_80: build with --arch "
     "sm_90"),
    (["--dtype", "fp16", "--accum", "fp16", *LANE, "--set", "tap_split=3"],
     "tap_split='3': choose one of 1, 2"),
    (["--dtype", "fp16", "--accum", "fp16", *LANE, "--set", "wgmma=1", "--arch", "sm_80"],
     "uses wgmma or TMA, which run on sm_90 GPUs (H100, H200), not sm_80: build with --arch "
     "sm_90"),
    (["--dtype", "fp16", "--accum", "fp16", *LANE, "--set", "wgmma=1", "--set", "groups=2"],
     "lane: wgmma=1 needs groups a multiple of 4"),
])
def test_cli_refuses_bad_input_in_one_line(argv: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert build_main([*argv, "--shape", "1,56,56,64,64", "--no-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize("knob", ["stages", "wgmma", "tap_split", "tma", "exchange_own",
                                  "stack"])
def test_cli_names_the_family_of_a_lane_knob(knob: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A lane knob set without --family lane (the default family, pkf, has none of them): one
    line naming the family to add, as the old per-knob flags' "add --lane" did."""
    value = "3" if knob == "stages" else "2" if knob == "tap_split" else "1"
    argv = ["--dtype", "fp16", "--set", f"{knob}={value}", "--shape", "1,56,56,64,64",
            "--no-run"]
    assert build_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert f"--set '{knob}={value}'" in err and "pkf family's" in err
    assert "--family lane" in err, err


def test_filled_source_and_launches() -> None:
    wl, cfg = fp16(3, 7, 9, 64, 64, epilogue=("bias", "relu")), lane_cfg()
    kernels = lane_kernels(wl, cfg)
    assert not re.search(r"\{\{[A-Z0-9_]+\}\}", kernels.source)
    assert "constexpr bool kBias = true, kResidual = false, kRelu = true;" in kernels.source
    assert f"static_assert(kSmemBytes == {cfg.smem_bytes(wl)}" in kernels.source
    (ktrans,), (forward,) = kernels.weight_launches, kernels.forward_launches
    assert ktrans.args == ("w", "U") and ktrans.grid[0] * ktrans.block[0] >= 64 * 64
    # 3 images x 2 x 1 tile groups over 4 groups per block; one K block of 64 channels
    assert forward.grid == (2, 1, 1) and forward.block == (256, 1, 1) and forward.persistent
    assert forward.args == ("x", "U", "bias", "y")
    assert forward.shared_bytes == cfg.smem_bytes(wl) == 2 * (16 * 64 * 72 + 4 * 2 * 108 * 40)
    assert [ws.count for ws in kernels.workspaces] == [16 * 64 * 64]


def test_space_offers_lane_configs_only_where_they_apply() -> None:
    from wino_tvm.tune.space import Axes, config_space

    # C = 512: U's rows for 16 channels alone (266 KB) exceed the shared memory
    for wl, expect in ((fp16(1, 224, 224, 64, 64), True), (fp16(1, 14, 14, 256, 256), True),
                       (fp16(1, 7, 7, 512, 512), False),
                       (Conv2dWorkload(1, 224, 224, 64, 64, dtype="int8", m=2), False),
                       (int8(1, 224, 224, 64, 64, out="int8"), True)):
        space, _ = config_space(wl, H100)
        lane = [c for c in space if c.cfg.FAMILY == "lane"]
        assert bool(lane) == expect
        assert all(isinstance(c.cfg, LaneConfig) for c in lane)
        # int8 with fp16 accumulators: the lane kernel only, at m=2
        assert wl.accum != "fp16" or wl.dtype != "int8" or (
            len(lane) == len(space) and {c.wl.m for c in space} == {2})
        assert all(c.cfg.problems(c.wl, H100) == [] for c in lane)
        assert not any(c.cfg.wgmma for c in lane)  # wgmma is opt-in (sm_90 GPUs only)
    # with it: wgmma configs beside the mma.sync ones, in warpgroups of four tile groups
    wl = fp16(1, 224, 224, 64, 64)
    space, _ = config_space(wl, H100, Axes(families=("lane",),
                                            knobs={"lane": {"wgmma": (False, True)}}))
    wgmma = [c.cfg for c in space if c.cfg.FAMILY == "lane" and c.cfg.wgmma]
    assert wgmma and all(cfg.groups % 4 == 0 for cfg in wgmma)
    assert {cfg.tap_split for cfg in wgmma} == {1, 2}
    # U without ldmatrix's row pad: some wgmma configs fit where their mma.sync twins do not
    twins = {cfg.with_(wgmma=False) for cfg in wgmma}
    assert {cfg for cfg in twins if cfg.smem_bytes(wl) <= H100.smem_per_block} <= {
        c.cfg for c in space}
    assert any(cfg.smem_bytes(wl) > H100.smem_per_block for cfg in twins)
    # the exchange in memory of its own: opt-in, and only with the tap split
    space, _ = config_space(wl, H100, Axes(families=("lane",),
                                            knobs={"lane": {"exchange_own": (False, True)}}))
    own = [c.cfg for c in space if c.cfg.FAMILY == "lane" and c.cfg.exchange_own]
    assert own and all(cfg.tap_split == 2 for cfg in own)
    assert {cfg.with_(exchange_own=False) for cfg in own} <= {c.cfg for c in space}
    # stacked tile groups: opt-in, TMA blocks of 4 groups only, beside their unstacked twins
    space, _ = config_space(wl, H100, Axes(families=("lane",),
                                           knobs={"lane": {"tma": (True,),
                                                           "stack": (False, True)}}))
    stacked = [c.cfg for c in space if c.cfg.FAMILY == "lane" and c.cfg.stack]
    assert stacked and all(cfg.tma and cfg.groups == 4 and not cfg.exchange_own
                           for cfg in stacked)
    # (a stack needs less memory: some fit where their unstacked twins do not)
    twins = {cfg.with_(stack=False) for cfg in stacked}
    assert {cfg for cfg in twins if cfg.smem_bytes(wl) <= H100.smem_per_block} <= {
        c.cfg for c in space}
    assert any(cfg.smem_bytes(wl) > H100.smem_per_block for cfg in twins)


def test_stacked_grid_counts_stacks() -> None:
    # 448²: 112 x 28 tile groups of 2 x 8 tiles, or 28 x 28 stacks of 8 x 8; 56²'s 28 tile rows
    # end inside a stack (3.5 of them: the last computes on zeros past the image)
    cfg = lane_cfg(64, 1, 4, 32, 2, True, 2, tma=True)
    for shape, groups, stacks in (((1, 448, 448, 64, 64), 112 * 28, 28 * 28),
                                  ((32, 56, 56, 64, 64), 32 * 14 * 4, 32 * 4 * 4)):
        wl = fp16(*shape)
        assert cfg.tile_groups(wl) == groups and cfg.grid(wl) == (groups // 4, 1)
        stacked = cfg.with_(stack=True)
        assert stacked.tile_groups(wl) == stacks and stacked.grid(wl) == (stacks, 1)
    # one patch ring for the block (18 x 18 pixels), the exchange's both tiles its own
    wl = fp16(1, 448, 448, 64, 64)
    patch = -(-2 * 18 * 18 * 40 // 128) * 128
    assert cfg.with_(stack=True).smem_bytes(wl) == (2 * 16 * 64 * 64 + 2 * patch
                                                    + 4 * 2 * 64 * 64 * 2 // 2 + 2 * 8)


# Every class of variant: both accumulators and warp widths, the whole epilogue, images that
# end inside a tile group, C = 128 with K blocks, a single warp per block, and chunks that
# cover the patch whole, in halves or in more pieces than buffers (each with 2 to 4 buffers),
# 16 chunks (a rolled chunk loop), wgmma, and the tap split.
VARIANTS = {
    "fp16_w32": (fp16(1, 64, 64, 64, 64), lane_cfg()),
    "fp16_w32_epilogue_ragged": (fp16(3, 7, 9, 64, 64, epilogue=ALL), lane_cfg(32, 1, 8)),
    "fp32_w16_epilogue_whole_patch": (fp16(2, 30, 34, 64, 64, accum="fp32", epilogue=ALL),
                                      lane_cfg(16, 2, 2, 64, 3)),
    "fp16_c128_kblocks_4_chunks": (fp16(2, 14, 14, 128, 128, epilogue=("residual",)),
                                   lane_cfg(16, 2, 2, 32)),
    "fp32_c128_one_warp": (fp16(1, 9, 40, 128, 64, accum="fp32", epilogue=("bias",)),
                           lane_cfg(16, 1, 1, 64)),
    "fp16_c48_3_chunks_4_stages": (fp16(2, 12, 20, 48, 32), lane_cfg(16, 2, 3, 16, 4)),
    # more than 8 chunks: the chunk loop is not unrolled
    "fp16_c256_16_chunks_rolled": (fp16(2, 10, 12, 256, 32, epilogue=("bias",)),
                                   lane_cfg(16, 1, 2, 16, 3)),
    # wgmma: both accumulators and warp widths, K blocks, and a last block whose warpgroups
    # hold tile groups past the end (3 images x 2 groups over 8 per block)
    "fp16_w32_wgmma": (fp16(1, 64, 64, 64, 64), lane_cfg(32, 2, 4, 16, 3, wgmma=True)),
    "fp32_wgmma_epilogue_ragged": (fp16(3, 7, 9, 64, 64, accum="fp32", epilogue=ALL),
                                   lane_cfg(16, 1, 8, 32, 2, wgmma=True)),
    "fp16_w16_c128_wgmma_kblocks": (fp16(2, 14, 14, 128, 128, epilogue=("residual",)),
                                    lane_cfg(16, 2, 4, 32, 2, wgmma=True)),
    # the tap split: both accumulators and warp widths, the epilogue on ragged images, K blocks
    # with two channel slices per group, and a rolled chunk loop
    "fp16_w64_tap_split": (fp16(1, 64, 64, 64, 64), lane_cfg(64, 1, 4, 16, 2, tap_split=2)),
    "fp32_w32_tap_split_epilogue_ragged": (fp16(3, 7, 9, 64, 64, accum="fp32", epilogue=ALL),
                                           lane_cfg(32, 1, 3, 32, 3, tap_split=2)),
    "fp16_w32_tap_split_kblocks_kslices": (fp16(2, 14, 14, 64, 128, epilogue=("residual", "relu")),
                                           lane_cfg(32, 2, 2, 16, 3, tap_split=2)),
    "fp16_w32_tap_split_9_chunks_rolled_epilogue": (fp16(2, 10, 12, 144, 64, epilogue=ALL),
                                                    lane_cfg(32, 1, 1, 16, 2, tap_split=2)),
    # the exchange's words for both tiles in memory of its own (the others: tile 1's in the
    # last patch buffer)
    "fp32_w32_tap_split_kslices_own_exchange": (fp16(1, 30, 34, 64, 64, accum="fp32"),
                                                lane_cfg(32, 2, 2, 16, 3, tap_split=2)),
    # ... and so by choice (exchange_own) where tile 1's would fit the patch buffer: the C = 64
    # fp32 picks' shape, with TMA and the epilogue on a ragged image
    "fp32_w32_tap_split_wgmma_tma_exchange_own": (fp16(2, 30, 34, 64, 64, accum="fp32",
                                                       epilogue=ALL),
                                                  lane_cfg(32, 1, 4, 64, 2, True, 2, tma=True,
                                                           exchange_own=True)),
    # the tap split with wgmma: the halves in two warpgroups, warps past the last tile group
    "fp16_w64_tap_split_wgmma": (fp16(1, 64, 64, 64, 64), lane_cfg(64, 1, 4, 16, 3, True, 2)),
    "fp32_w32_tap_split_wgmma_epilogue_ragged": (fp16(3, 7, 9, 64, 64, accum="fp32",
                                                      epilogue=ALL),
                                                 lane_cfg(32, 1, 4, 32, 2, True, 2)),
    # TMA copies: the 448²-960² pick's shape (interior and border groups), mma.sync with the
    # epilogue on ragged images (boxes past every edge), the last chunk's box past C, a rolled
    # chunk loop with K blocks, and warpgroups past the last tile group
    "fp16_w64_tap_split_wgmma_tma": (fp16(1, 64, 64, 64, 64),
                                     lane_cfg(64, 1, 4, 32, 2, True, 2, tma=True)),
    "fp32_w16_tma_epilogue_ragged": (fp16(3, 7, 9, 64, 64, accum="fp32", epilogue=ALL),
                                     lane_cfg(16, 2, 2, 64, 3, tma=True)),
    "fp16_c256_tma_rolled_kblocks": (fp16(2, 10, 12, 256, 64, epilogue=("bias",)),
                                     lane_cfg(16, 1, 2, 16, 4, tma=True)),
    "fp32_w32_tap_split_wgmma_tma_ragged": (fp16(3, 7, 9, 64, 64, accum="fp32", epilogue=ALL),
                                            lane_cfg(32, 1, 4, 64, 2, True, 2, tma=True)),
    # stacked tile groups: the tap-split shape on an image that ends inside a stack (rows and
    # columns) with the epilogue, past the last stack at 3 images, and mma.sync with fp32
    # accumulators, 3 buffers and a rolled chunk loop over K blocks
    "fp16_w64_tap_split_wgmma_tma_stack_epilogue_ragged": (
        fp16(3, 22, 40, 64, 64, epilogue=ALL), lane_cfg(64, 1, 4, 32, 2, True, 2, tma=True,
                                                        stack=True)),
    "fp32_w16_tma_stack_rolled_kblocks": (fp16(2, 20, 18, 144, 32, accum="fp32"),
                                          lane_cfg(16, 1, 4, 16, 3, tma=True, stack=True)),
    # ... and the 448²-960² picks' shape: two channel slices per stack, no tap split
    "fp16_w32_kslices_wgmma_tma_stack_epilogue_ragged": (
        fp16(2, 20, 36, 64, 64, epilogue=ALL), lane_cfg(32, 2, 4, 64, 2, True, 1, tma=True,
                                                        stack=True)),
    # int8 in on fp16 tensor cores: that shape with an int8 y; the tap split with TMA and an
    # int8 y; mma.sync with cp.async copies and an fp32 y with the epilogue; and C = 256 (U's
    # step subnormal in fp16), 16-channel chunks (a 48-byte pixel), a rolled chunk loop, an fp16 y
    "int8_w32_kslices_wgmma_tma_stack_epilogue_ragged_int8_out": (
        int8(2, 20, 36, 64, 64, out="int8", epilogue=ALL),
        lane_cfg(32, 2, 4, 64, 2, True, 1, tma=True, stack=True)),
    "int8_w64_tap_split_wgmma_tma_int8_out": (int8(1, 30, 34, 64, 64, out="int8"),
                                              lane_cfg(64, 1, 4, 32, 2, True, 2, tma=True)),
    # the int8-y picks' shape at 448²-960²: the tap split stacked, all 64 channels one chunk
    # (whose int8 patch fits where fp16's does not), on an image that ends inside a stack
    "int8_w64_tap_split_whole_chunk_wgmma_tma_stack_ragged_int8_out": (
        int8(3, 22, 40, 64, 64, out="int8"),
        lane_cfg(64, 1, 4, 64, 2, True, 2, tma=True, stack=True)),
    "int8_w32_epilogue_ragged_fp32_out": (int8(3, 7, 9, 64, 64, out="fp32", epilogue=ALL),
                                          lane_cfg(32, 1, 8)),
    "int8_w16_c256_wgmma_tma_rolled_fp16_out": (int8(2, 10, 12, 256, 32, out="fp16",
                                                     epilogue=("bias",)),
                                                lane_cfg(16, 1, 4, 16, 3, True, tma=True)),
}


def test_tap_split_variants_cover_both_exchanges() -> None:
    tiles = {name: cfg.exchange_tiles(wl) for name, (wl, cfg) in VARIANTS.items()
             if cfg.tap_split == 2}
    assert tiles.pop("fp32_w32_tap_split_kslices_own_exchange") == 2
    own = tiles.pop("fp32_w32_tap_split_wgmma_tma_exchange_own")
    wl, cfg = VARIANTS["fp32_w32_tap_split_wgmma_tma_exchange_own"]
    assert own == 2 and cfg.with_(exchange_own=False).exchange_tiles(wl) == 1
    stacked = tiles.pop("fp16_w64_tap_split_wgmma_tma_stack_epilogue_ragged")
    wl, cfg = VARIANTS["fp16_w64_tap_split_wgmma_tma_stack_epilogue_ragged"]
    assert stacked == 2 and cfg.with_(stack=False).exchange_tiles(wl) == 1
    assert tiles.pop("int8_w64_tap_split_whole_chunk_wgmma_tma_stack_ragged_int8_out") == 2
    assert set(tiles.values()) == {1}


artifacts, binaries = variant_fixtures("lane", VARIANTS, lane_kernels)


@pytest.mark.nvcc
@needs_nvcc
def test_every_variant_compiles_without_spills(artifacts: dict[str, Path]) -> None:
    def check(name: str) -> dict[str, list[str]]:
        # wgmma and TMA need sm_90a: compile_check takes it for the sm_90 GPU
        archs = ("sm_90",) if VARIANTS[name][1].needs_sm90a else ("sm_80", "sm_90")
        return compile_check(artifacts[name], archs=archs)

    with ThreadPoolExecutor(2) as pool:
        reports = dict(zip(artifacts, pool.map(check, artifacts), strict=True))
    for name, report in reports.items():
        for arch, lines in report.items():
            assert_no_spills(lines, "wino_lane_forward", (name, arch))
        needs = VARIANTS[name][1].needs_sm90a
        assert list(report) == (["sm_90a"] if needs else ["sm_80", "sm_90"])


@pytest.mark.nvcc
@needs_nvcc
def test_wgmma_library_compiles_for_sm_90a(tmp_path: Path) -> None:
    # The shared library takes the program's arch-specific target too (else wgmma fails there).
    # TMA: the library builds x's tensor map per call too.
    for name in ("fp16_w32_wgmma", "fp16_w64_tap_split_wgmma_tma"):
        wl, cfg = VARIANTS[name]
        spec = workload_spec(wl, cfg.fusion, cfg.name(wl), "test", lane_kernels(wl, cfg))
        write_artifact(spec, tmp_path / name, {KERNELS_FILE: spec.kernels_source})
        assert compile_library(tmp_path / name, "sm_90").stat().st_size > 0


@on_gpu
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_is_correct_on_gpu(binaries: dict[str, Path], name: str) -> None:
    assert_correct_on_gpu(binaries[name])


@on_gpu
def test_tma_library_computes_and_refuses_a_misaligned_x(tmp_path: Path) -> None:
    # The library builds x's tensor map per call (a launch argument helper); one it cannot
    # build comes back as an error, with the process and the GPU context intact.
    torch = pytest.importorskip("torch")
    from wino_tvm.library import WinoLibrary

    wl, cfg = VARIANTS["fp16_w64_tap_split_wgmma_tma"]
    spec = workload_spec(wl, cfg.fusion, cfg.name(wl), "test", lane_kernels(wl, cfg))
    write_artifact(spec, tmp_path, {KERNELS_FILE: spec.kernels_source})
    lib = WinoLibrary(compile_library(tmp_path, gpu_arch()))
    x = torch.rand(wl.n, wl.h, wl.w, wl.c + 8, device="cuda").half() * 2 - 1
    wt = torch.rand(3, 3, wl.c, wl.k, device="cuda").half() * 2 - 1
    y = torch.full((wl.n, wl.h, wl.w, wl.k), float("nan"), device="cuda", dtype=torch.float16)
    workspace = torch.empty(lib.workspace_bytes(), dtype=torch.uint8, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    lib.weight_transform(wt.data_ptr(), workspace.data_ptr(), stream)
    aligned = x[..., :wl.c].contiguous()
    lib.forward(aligned.data_ptr(), y.data_ptr(), workspace.data_ptr(), stream)
    torch.cuda.synchronize()
    ref = torch.nn.functional.conv2d(aligned.double().permute(0, 3, 1, 2),
                                     wt.double().permute(3, 2, 0, 1), padding=1)
    assert (y.double() - ref.permute(0, 2, 3, 1)).norm() / ref.norm() < spec.tolerance
    with pytest.raises(WinoError, match="invalid argument"):
        lib.forward(x.data_ptr() + 2, y.data_ptr(), workspace.data_ptr(), stream)
    lib.forward(aligned.data_ptr(), y.data_ptr(), workspace.data_ptr(), stream)
    torch.cuda.synchronize()
