"""The tuner's space: the pruning rules, the pkf family's shared-memory model they read, the
axes (--family, --m, --axis) and the pruned space of every family."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from tune_helpers import H100, PAPER, default_space, names_digest, space_of

from wino_tvm.device import KNOWN_DEVICES, shared_residency, shared_wavefronts
from wino_tvm.errors import WinoError
from wino_tvm.kernels.f23.config import F23Config
from wino_tvm.kernels.lane.config import LaneConfig
from wino_tvm.kernels.pkf.config import FUSIONS, PkfConfig
from wino_tvm.tune.space import (
    DEFAULT_AXES,
    RULES,
    Axes,
    Candidate,
    accumulator_registers,
    config_space,
    l2_residency,
    legality,
    max_blocks,
    refusal,
    shared_memory,
    sm_fill,
    tile_sizes,
)
from wino_tvm.workload import BYTES, Conv2dWorkload

# ---- pruning rules --------------------------------------------------------------------------


def test_legality_refuses_illegal_tilings() -> None:
    assert legality(PAPER, PkfConfig(), H100) is None
    assert legality(PAPER, PkfConfig(tb_m=24), H100) == (
        "pkf: tb_m=24 is not a multiple of the fragment's 16")
    assert legality(PAPER, PkfConfig(tb_n=128), H100) == (
        "pkf: K=64 is not a multiple of tb_n=128")
    odd_c = Conv2dWorkload(1, 8, 8, 40, 64)
    assert "pkf: C=40 is not a multiple of 16 (WMMA K)" in legality(odd_c, PkfConfig(), H100)
    assert legality(PAPER, PkfConfig(pad=8), H100) == (
        "pkf: pad=8 is not one of 0, 16, 32, 48, 64")
    # the template families' own checks: both take m=2 only
    assert legality(PAPER, LaneConfig(), H100) == "lane takes m=2, not m=4"
    assert legality(PAPER, F23Config(), H100) == (
        "f23 computes 2 output pixels per tile (m=2), not m=4")
    m2 = dataclasses.replace(PAPER, m=2)
    assert legality(m2, LaneConfig(), H100) is None


def test_legality_keeps_sm90a_configs_off_other_gpus() -> None:
    """wgmma and TMA (every f23 config, the lane kernel's wg/tma knobs) need an sm_90 GPU: with
    every family in the default space, a space for an A100 must not offer them."""
    wl = Conv2dWorkload(32, 14, 14, 256, 256, "fp16", 2)
    a100 = KNOWN_DEVICES["a100"]
    assert legality(wl, F23Config(), H100) is None
    assert legality(wl, F23Config(), a100) == (
        f"f23: {F23Config().name(wl)} uses wgmma or TMA, which need an sm_90 GPU (H100, H200), "
        "not NVIDIA A100 (sm_80)")
    wgmma = LaneConfig(groups=4, wgmma=True)
    assert legality(wl, wgmma, H100) is None
    assert legality(wl, wgmma, a100).startswith(f"lane: {wgmma.name(wl)} uses wgmma or TMA")
    assert legality(wl, LaneConfig(), a100) is None
    axes = Axes(families=("lane", "f23"), knobs={"lane": {"wgmma": (False, True)}})
    on_h100 = config_space(wl, H100, axes)[0]
    on_a100 = config_space(wl, a100, axes)[0]
    assert any(c.cfg.FAMILY == "f23" for c in on_h100) and any(c.cfg.wgmma for c in on_h100
                                                                if c.cfg.FAMILY == "lane")
    assert on_a100 and not any(c.cfg.needs_sm90a for c in on_a100)


def test_shared_memory_uses_the_kernels_real_footprint() -> None:
    cfg = PkfConfig(tb_m=64, tb_n=64, tb_k=64)
    smem = cfg.smem_bytes(PAPER)  # 36 * 128 * (128 + 16) B
    assert smem == 36 * 128 * 144
    assert shared_memory(PAPER, cfg, dataclasses.replace(H100, smem_per_block=smem)) is None
    small = dataclasses.replace(H100, smem_per_block=smem - 1)
    assert f"shared memory {smem} B" in shared_memory(PAPER, cfg, small)


@pytest.mark.parametrize(("dtype", "accum", "tiles", "u_smem", "row"), [
    ("fp16", "fp32", (32, 32, 32), True, 32 + 8),  # V+U rows: 16*64*80 B >= 16*32*40*4 B
    ("fp16", "fp32", (32, 32, 64), False, 32 + 4),  # 16*32*144 B: 3 blocks; wide M 2 blocks
    ("fp16", "fp16", (32, 64, 64), False, 64 + 8),  # 8 halves is the 16-byte pad either way
    ("int8", "int32", (16, 64, 64), False, 64 + 8),  # M 68 -> 72 KB: 3 blocks per SM either way
    ("int8", "int32", (32, 32, 64), False, 32 + 4),  # 72 -> 80 KB: 3 -> 2 blocks (0.61x)
])
def test_m_rows_widen_only_where_the_blocks_per_sm_stay(dtype: str, accum: str, tiles: tuple,
                                                        u_smem: bool, row: int) -> None:
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype=dtype, m=2, accum=accum)
    full = PkfConfig(*tiles, fusion="full", u_l2=not u_smem)
    assert full.m_row_elems(wl) == row
    operands = full.with_(fusion="shmem").smem_bytes(wl)
    acc = BYTES[accum]
    assert full.smem_bytes(wl) == max(operands, 16 * tiles[0] * row * acc)
    narrow = max(operands, 16 * tiles[0] * (tiles[1] + 16 // acc) * acc)
    assert shared_residency(full.smem_bytes(wl)) == shared_residency(narrow)
    assert full.with_(fusion="none").m_row_elems(wl) == tiles[1] + 16 // acc


def test_m_rows_stay_narrow_where_the_carveout_would_grow() -> None:
    """int8 m=4 32/32/32: one block either way, but 162 -> 180 KB moves the carveout from 164
    to 196 KB (0.94-1.01x on the H100; experiments: m_rows_ab)."""
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="int8", m=4)
    cfg = PkfConfig(32, 32, 32, fusion="full")
    assert cfg.m_row_elems(wl) == 32 + 4
    assert shared_residency(cfg.smem_bytes(wl)) == (1, 164 * 1024)
    assert shared_residency(36 * 32 * 40 * 4) == (1, 196 * 1024)
    assert shared_residency(68 * 1024) == (3, 228 * 1024)


def test_shared_wavefronts_bank_model() -> None:
    """One warp access: 16 lanes x 4 bytes in each of two rows 80 bytes apart share 4 banks
    (2 wavefronts), 320 bytes apart none; a broadcast is 1; 8-byte lanes take 2 phases."""
    def rows(step_bytes: int, lanes: int = 16, access: int = 4) -> list[int]:
        return [r * step_bytes + lane * access for r in range(32 // lanes) for lane in range(lanes)]
    assert shared_wavefronts(rows(80), 4) == 2
    assert shared_wavefronts(rows(320), 4) == 1
    assert shared_wavefronts(rows(64), 4) == 1  # contiguous
    assert shared_wavefronts([0] * 32, 4) == 1
    assert shared_wavefronts(list(range(0, 256, 8)), 8) == 2
    assert shared_wavefronts([128 * lane for lane in range(32)], 4) == 32


@pytest.mark.parametrize(("dtype", "accum", "tiles", "knobs", "step"), [
    ("fp16", "fp16", (32, 32, 64), {"ot_channels": 2}, 4),  # 16 lanes per 80-byte row
    ("fp16", "fp16", (16, 32, 64), {"ot_channels": 2}, 4),
    ("int8", "int32", (16, 16, 64), {"persist": True, "k_split": 4}, 4),  # 80-byte rows
    ("int8", "int32", (16, 16, 64), {}, 1),  # wide 96-byte rows: 4 apart would share all banks
    ("fp16", "fp32", (32, 32, 32), {"ot_channels": 2}, 1),  # 8-byte lanes: a row per phase
    ("fp16", "fp16", (32, 64, 64), {"ot_channels": 2}, 1),  # one row per warp
    ("fp16", "fp16", (32, 32, 32), {}, 1),                  # 32 lanes x 2 bytes: one row
])
def test_otrans_rows_alpha_apart_only_where_adjacent_ones_conflict(
        dtype: str, accum: str, tiles: tuple, knobs: dict, step: int) -> None:
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype=dtype, m=2, accum=accum)
    assert PkfConfig(*tiles, fusion="full", **knobs).ot_row_step(wl) == step


def test_otrans_rows_need_whole_rounds() -> None:
    """m=4 (alpha 6): 2 rows x 6 warps do not divide 32 tiles, so rows stay adjacent."""
    wl = Conv2dWorkload(1, 960, 960, 64, 64, m=4, accum="fp16")
    assert PkfConfig(32, 32, 32, fusion="full", ot_channels=2).ot_row_step(wl) == 1


def test_l2_residency_applies_to_llc_only() -> None:
    cfg = PkfConfig(tb_m=32, tb_k=32, fusion="llc")
    resident = min(cfg.blocks(PAPER), H100.sms)
    need = 2 * 36 * 32 * 32 * resident
    assert l2_residency(PAPER, cfg, dataclasses.replace(H100, l2_bytes=need)) is None
    tight = dataclasses.replace(H100, l2_bytes=need - 1)
    assert f"llc working set {need} B" in l2_residency(PAPER, cfg, tight)
    assert l2_residency(PAPER, cfg.with_(fusion="shmem"), tight) is None
    m2 = dataclasses.replace(PAPER, m=2)
    assert l2_residency(m2, LaneConfig(), tight) is None  # full fusion: nothing through L2


def test_sm_fill_needs_a_block_per_sm() -> None:
    # 3136 tiles / 128 -> 25 row blocks (rounded up), K / 64 -> 1: 25 blocks < 132 SMs.
    assert "25 thread blocks < 132" in sm_fill(PAPER, PkfConfig(tb_m=128, tb_n=64), H100)
    assert sm_fill(PAPER, PkfConfig(tb_m=16, tb_n=64), H100) is None  # 196 blocks


def test_sm_fill_spares_the_f23_family() -> None:
    """The F(2, 3) kernel has one tiling, so no finer one to prefer: 4 blocks pass where a pkf
    config of 4 blocks does not."""
    wl = Conv2dWorkload(1, 14, 14, 256, 256, "fp16", 2)
    assert F23Config().blocks(wl) == 4 and sm_fill(wl, F23Config(), H100) is None
    assert "4 thread blocks < 64" in sm_fill(wl, PkfConfig(tb_m=128, tb_n=64), H100)


def test_sm_fill_is_softer_for_workloads_too_small_to_fill_the_gpu() -> None:
    tiny = Conv2dWorkload(1, 7, 7, 512, 512, "fp16", 4)  # 4 tiles
    assert max_blocks(tiny) == 64  # 32x8 fragments: one row block x 512/8 column blocks
    finest = PkfConfig(tb_m=32, tb_n=8, frag=(32, 8, 16))
    assert finest.blocks(tiny) == 64 and sm_fill(tiny, finest, H100) is None
    assert "32 thread blocks < 64" in sm_fill(tiny, PkfConfig(), H100)
    space, _ = default_space(tiny)
    assert space, "a small workload keeps a non-empty space"
    # the space the code before the families kept with `--f23 0,1` (commit 7bb888f: 614
    # configs), and the f23 configs of two chunks an input stage (xc2) or the producer (pw) on
    # top and f44's at m = 4 (C, K = 512)
    assert {c.wl.m for c in space if c.cfg.FAMILY == "f44"} == {4}
    old = [c for c in space if getattr(c.cfg, "x_chunks", 1) == 1
           and not getattr(c.cfg, "producer", False) and c.cfg.FAMILY != "f44"]
    assert len(old) == 614
    assert {c.cfg.FAMILY for c in space if c not in old} == {"f23", "f44"}
    assert names_digest(old) == (
        "4c1ff244b58293cdf3c6f06fa509eb65c5f2d7ff83a337af757b224aa96e571d")


def test_accumulator_registers_cap() -> None:
    # alpha 6 x (32/16) x (32/16) = 24 fp32 fragments x 8 registers = 192: at the cap.
    assert accumulator_registers(PAPER, PkfConfig(tb_m=32, tb_n=32), H100) is None
    assert "48 accumulator fragments = 384 registers" in accumulator_registers(
        PAPER, PkfConfig(tb_m=64, tb_n=32), H100)
    # fp16 accumulators pack two per register: 48 fragments fit.
    half_acc = dataclasses.replace(PAPER, accum="fp16")
    assert accumulator_registers(half_acc, PkfConfig(tb_m=64, tb_n=32), H100) is None
    # Four warp groups of 128 threads leave each thread 128 registers: 65 for accumulators.
    grouped = PkfConfig(32, 32, 64, fusion="full", persist=True, groups=4)
    wl = dataclasses.replace(PAPER, m=2)
    assert "16 accumulator fragments = 128 registers > 65" in accumulator_registers(
        wl, grouped, H100)
    assert accumulator_registers(wl, grouped.with_(tb_m=16), H100) is None
    # the template families keep their own register budgets in their problems()
    assert accumulator_registers(wl, LaneConfig(tb_n=32, groups=12), H100) is None
    assert accumulator_registers(wl, F23Config(), H100) is None


# ---- the space ------------------------------------------------------------------------------


# The tiles of the space test, on pkf and on the lane family's tb_n and tb_k.
SMALL_TILES = {"tb_m": (16, 32, 64), "tb_n": (16, 32, 64), "tb_k": (16, 64)}
SMALL = Axes(families=("pkf", "lane"),
             knobs={"pkf": SMALL_TILES, "lane": {"tb_n": (16, 32, 64), "tb_k": (16, 64)}})


def test_config_space_keeps_only_what_every_rule_accepts() -> None:
    assert Axes.parse("pkf,lane", (2, 4), ["pkf.tb_m=16,32,64", "tb_n=16,32,64",
                                           "tb_k=16,64"]) == SMALL
    space, refused = config_space(PAPER, H100, SMALL)
    # pkf: m, tb_m, tb_n, tb_k, frag, fusion, vec, pad, u_l2, persist, groups, k_split,
    # ot_channels, m_rounds (min_blocks: 0 only)
    total = 2 * 3 * 3 * 2 * 3 * len(FUSIONS) * 1 * 2 * 2 * 2 * 4 * 3 * 2 * 2
    # lane (m=2 only): tb_n, tb_k, k_split, groups, stages, tap_split
    lane_knobs = LaneConfig.KNOBS
    total += (3 * 2 * len(lane_knobs["k_split"].axis_values)
              * len(lane_knobs["groups"].axis_values) * len(lane_knobs["stages"].axis_values)
              * len(lane_knobs["tap_split"].axis_values))
    assert len(space) + sum(refused.values()) == total
    # The same configs as the code before the families (commit 7bb888f) kept with these axes:
    # 2115, and as many refused by each rule but legality (its wmma_divisibility also counted
    # the lane configs at m=4, 576, which the lane family no longer offers: 204016 - 576).
    assert len(space) == 2115
    assert names_digest(space) == (
        "e0ab6ca2321d78b12edcc4cb5cbfa91b44df1e6cd69c7be0cf85253f553205cb")
    # Since the unfused OTrans kernel's shared memory counts, shared_memory refuses 480 more
    # (1237 before), all of which a later rule refused before: the space is the same.
    assert refused == Counter({"legality": 203440, "shared_memory": 1717,
                               "accumulator_registers": 612, "sm_fill": 52})
    # fp32 accumulators: 16 channels per warp (32 with the tap split), chunks of tb_k channels
    # in 2 or 3 buffers; at most 8 warps (groups x k_split; with the tap split x 2, at most 9)
    lane = [c for c in space if c.cfg.FAMILY == "lane"]
    assert all(isinstance(c.cfg, LaneConfig) for c in lane)
    assert {(c.cfg.k_split, c.cfg.groups, c.cfg.tap_split) for c in lane} == {
        (1, 1, 1), (1, 2, 1), (1, 3, 1), (1, 4, 1), (1, 6, 1), (1, 8, 1), (2, 1, 1),
        (2, 2, 1), (2, 3, 1), (2, 4, 1), (4, 1, 1), (4, 2, 1), (1, 1, 2), (1, 2, 2),
        (1, 3, 2), (1, 4, 2), (2, 1, 2), (2, 2, 2)}
    assert {(c.wl.m, c.cfg.tb_n, c.cfg.tb_k, c.cfg.stages, c.cfg.tap_split) for c in lane} == {
        (2, 16 * split, tb_k, stages, split)
        for tb_k in (16, 64) for stages in (2, 3) for split in (1, 2)}
    space = [c for c in space if c.cfg.FAMILY != "lane"]
    assert all(isinstance(c.cfg, PkfConfig) for c in space)
    assert set(refused) <= {rule.__name__ for rule in RULES}
    for cand in space:
        assert refusal(cand.wl, cand.cfg, H100) is None
        assert cand.cfg.problems(cand.wl, H100) == []
    assert {c.wl.m for c in space} == {2, 4}
    assert len({c.name for c in space}) == len(space)
    assert {c.cfg.u_l2 for c in space} == {True, False}
    assert {c.cfg.persist for c in space} == {True, False}
    assert all(c.cfg.can_persist(c.wl) for c in space if c.cfg.persist)
    assert {c.cfg.groups for c in space} == {1, 2, 3, 4}
    assert {c.cfg.ot_channels for c in space} == {1, 2}
    assert all(c.cfg.persist for c in space if c.cfg.groups > 1)
    assert {c.cfg.k_split for c in space} == {1, 2, 4}
    assert all(c.cfg.persist and c.cfg.groups == 1 and c.wl.m == 2
               for c in space if c.cfg.k_split > 1)
    assert {c.cfg.m_rounds for c in space} == {1, 2}
    assert all(c.cfg.fusion == "full" for c in space if c.cfg.m_rounds > 1)
    assert {c.cfg.min_blocks for c in space} == {0}


def test_int8_space_has_m_2_and_4_only() -> None:
    wl = Conv2dWorkload(1, 224, 224, 64, 64, "int8", 2)
    axes = Axes(m=(2, 4, 6), knobs={"pkf": {"tb_m": (16,), "tb_n": (16,), "tb_k": (16,)}})
    assert tile_sizes(wl, axes) == (2, 4)
    space, refused = config_space(wl, H100, axes)
    assert {c.wl.m for c in space} == {2, 4}
    assert {c.wl.accum for c in space} == {"int32"}
    assert {c.cfg.FAMILY for c in space} == {"pkf"}  # lane and f23 take no int32 accumulators
    # what the code before the families kept (commit 7bb888f: 80 configs); its refusals also
    # counted the lane configs it generated for int8 (192 at m=2 and 4: 11632 - 192)
    assert len(space) == 80
    assert names_digest(space) == (
        "fdd65fb2ab67c01cb5394683592c92ae518392aaa8471fac9ad66eb8b9c97401")
    assert refused == Counter({"legality": 11440})
    # int8 on fp16 tensor cores: the lane family at m=2 only
    on_fp16 = dataclasses.replace(wl, accum="fp16")
    assert tile_sizes(on_fp16, axes) == (2,)
    assert {c.cfg.FAMILY for c in space_of(on_fp16, Axes(families=("lane",)))} == {"lane"}


def test_default_space_is_the_old_one_with_f23() -> None:
    """Every family is in the default space now; before the families (commit 7bb888f) the
    F(2, 3) configs were opt-in (`--f23 0,1`): the same configs, 5005 with them and 4973
    without. The f23 strips (sw), two-chunk stages (xc) and the producer (pw) add their configs
    on top, the old ones unchanged."""
    assert DEFAULT_AXES == Axes(families=("pkf", "lane", "f23", "f44"), m=(2, 4), knobs={})
    wl = Conv2dWorkload(128, 28, 28, 128, 128, "fp16", 2)
    space, _ = default_space(wl)
    # f44 (F(4x4), m = 4) adds its configs; the others' are as before
    assert {c.wl.m for c in space if c.cfg.FAMILY == "f44"} == {4}
    space = [c for c in space if c.cfg.FAMILY != "f44"]
    assert {c.cfg.FAMILY for c in space} == {"pkf", "lane", "f23"}
    whole_rows = [c for c in space if getattr(c.cfg, "strip", 0) == 0
                  and getattr(c.cfg, "x_chunks", 1) == 1 and not getattr(c.cfg, "producer", False)]
    assert len(whole_rows) == 5005
    assert names_digest(whole_rows) == (
        "6d0b8fca0ef792adcd96438e73fe935a19d4cee8f952988b9dcf72639fd12eb6")
    # strips of 7 and 8 tiles only (14 and 16 of 14 tiles a row are no strips), two-chunk
    # stages and the producer
    added = [c for c in space if c not in whole_rows]
    assert {c.cfg.FAMILY for c in added} == {"f23"} and {c.cfg.strip for c in added} <= {0, 7, 8}
    assert {7, 8} <= {c.cfg.strip for c in added} and any(c.cfg.x_chunks == 2 for c in added)
    assert any(c.cfg.producer for c in added)
    old_default = [c for c in space if c.cfg.FAMILY != "f23"]
    assert len(old_default) == 4973
    assert names_digest(old_default) == (
        "87babb87e9b965786905baa7d0b5055e3b1227a6fbcac243ec96b1d506029a20")
    # The paper's workload: the whole-row f23 configs all need more shared memory than an H100
    # has at W = 224, so without strips the default space is the one of commit 7bb888f with or
    # without --f23 0,1.
    paper, refused = default_space(PAPER)
    paper_whole_rows = [c for c in paper if getattr(c.cfg, "strip", 0) == 0
                        and getattr(c.cfg, "x_chunks", 1) == 1]
    # (shared_memory refused 3158 before the OTrans kernel's counted; the space is the same)
    assert len(paper_whole_rows) == 4318
    assert names_digest(paper_whole_rows) == (
        "caad9bb24cb7c9382a07824384a327f38675ddb662392effdc8200585be90613")
    assert {c.cfg.FAMILY for c in paper if c not in paper_whole_rows} == {"f23"}


def test_candidate_name_round_trip() -> None:
    m2 = dataclasses.replace(PAPER, accum="fp16", m=2)
    cand = Candidate(m2, PkfConfig(tb_k=32, pad=0))
    assert cand.name.startswith("N1_H224_W224_C64_K64-fp16-fp16-m2-")
    assert Candidate.from_config_name(cand.wl.shape_dict(), cand.cfg.name(cand.wl)) == cand
    for cfg in (LaneConfig(tb_n=32, groups=4, wgmma=True), F23Config(persist=True)):
        wl = dataclasses.replace(m2, accum="fp32")
        other = Candidate(wl, cfg)
        assert Candidate.from_config_name(wl.shape_dict(), cfg.name(wl)) == other


# ---- axes: --family, --m, --axis ------------------------------------------------------------


def test_axes_parse_family_qualified_and_shared_knobs() -> None:
    assert Axes.parse("", (2, 4), []) == DEFAULT_AXES
    assert Axes.parse("lane", (2,), ["lane.wgmma=0,1"]) == Axes(
        families=("lane",), m=(2,), knobs={"lane": {"wgmma": (False, True)}})
    # a knob without a family: every listed family that has it (f23's tiles are fixed)
    assert Axes.parse("", (2, 4), ["tb_n=16,32"]).knobs == {
        "pkf": {"tb_n": (16, 32)}, "lane": {"tb_n": (16, 32)}}
    assert Axes.parse("pkf,f23", (2,), ["tb_n=16,32"]).knobs == {"pkf": {"tb_n": (16, 32)}}
    parsed = Axes.parse("pkf,f23", (2,), ["pkf.frag=16x16x16,32x8x16", "fusion=full",
                                          "f23.stages=4", "f23.persist=1", "pkf.u-l2=0"])
    assert parsed.knobs == {
        "pkf": {"frag": ((16, 16, 16), (32, 8, 16)), "fusion": ("full",), "u_l2": (False,)},
        "f23": {"stages": (4,), "persist": (True,)}}
    # the axes drive the space: wgmma lane configs only where asked for
    wl = dataclasses.replace(PAPER, m=2)
    plain = space_of(wl, Axes.parse("lane", (2,), []))
    both = space_of(wl, Axes.parse("lane", (2,), ["lane.wgmma=0,1"]))
    assert plain and {c.cfg.FAMILY for c in both} == {"lane"}
    assert not any(c.cfg.wgmma for c in plain) and any(c.cfg.wgmma for c in both)
    assert set(plain) < set(both)
    assert all(c.cfg.groups % 4 == 0 for c in both if c.cfg.wgmma)  # a warpgroup's 4 groups


@pytest.mark.parametrize(("families", "item", "message"), [
    ("", "lane.foo=1", "--axis 'lane.foo=1': the lane family has no knob 'foo'; its knobs: "
                       "tb_n, tb_k, wgmma, tma, exchange_own, stack, groups, k_split, stages, "
                       "tap_split"),
    ("", "foo=1", "--axis 'foo=1': no family of pkf, lane, f23, f44 has a knob 'foo'"),
    ("", "gpu.tb_n=16", "--axis 'gpu.tb_n=16': unknown kernel family 'gpu': choose one of "
                        "pkf, lane, f23, f44"),
    ("pkf", "lane.wgmma=0,1", "--axis 'lane.wgmma=0,1': the lane family is not in --family pkf"),
    ("f23", "tb_n=16", "--axis 'tb_n=16': no family of f23 has a knob 'tb_n'"),
    ("", "lane.wgmma=0,2", "--axis 'lane.wgmma=0,2': the lane family's wgmma='2': choose one "
                           "of 0, 1"),
    ("", "tb_n=8,16", "--axis 'tb_n=8,16': the lane family's tb_n='8': choose one of 16, 32, "
                      "64"),
    ("", "tb_n", "--axis 'tb_n': expected [FAMILY.]KNOB=V1,V2, e.g. lane.wgmma=0,1"),
    ("", "lane.tb_n=", "--axis 'lane.tb_n=': expected [FAMILY.]KNOB=V1,V2, e.g. "
                       "lane.wgmma=0,1"),
    ("pkf,gpu", "tb_n=16", "--family pkf,gpu: unknown kernel family 'gpu': choose from pkf, "
                           "lane, f23, f44"),
])
def test_axes_parse_refuses_with_one_line(families: str, item: str, message: str) -> None:
    with pytest.raises(WinoError) as info:
        Axes.parse(families, (2, 4), [item])
    assert str(info.value) == message


def test_axes_refuse_unknown_knobs_and_families() -> None:
    with pytest.raises(WinoError, match="the lane family has no knob 'tb_m'"):
        Axes(knobs={"lane": {"tb_m": (16,)}})
    with pytest.raises(WinoError, match="unknown kernel family 'gpu'"):
        Axes(families=("pkf", "gpu"))


def test_legality_refuses_an_otrans_kernel_beyond_shared_memory() -> None:
    """Unfused, OTrans stages the block's M slice: 16 taps x 128 tiles x 64 fp16 channels is
    256 KiB (the shape fuzz found the generator refusing it after the config had passed)."""
    wl = Conv2dWorkload(5, 32, 53, 96, 64, accum="fp16")
    too_big = PkfConfig(tb_m=128, tb_n=64, frag=(8, 32, 16), fusion="shmem", pad=0, u_l2=True)
    h200 = KNOWN_DEVICES["h200"]
    refused = ("pkf: the OTrans kernel's M slice (262144 B) exceeds NVIDIA H200's 232448 B per "
               "block: a smaller tb_m or tb_n")
    assert too_big.problems(wl, h200) == [refused]
    assert shared_memory(wl, too_big, h200) == refused
    assert "OTrans" not in shared_memory(wl, too_big.with_(fusion="full"), h200)
