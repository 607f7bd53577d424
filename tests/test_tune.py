"""The tuner: pruning rules, device limits, records, selection, apply-best, resumable measure."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wino_tvm.build import _config as build_config
from wino_tvm.build import parse_args as build_args
from wino_tvm.config import (
    ACCUMULATOR_BYTES,
    FUSIONS,
    KNOWN_DEVICES,
    DeviceLimits,
    KernelConfig,
    shared_residency,
    shared_wavefronts,
)
from wino_tvm.errors import WinoError
from wino_tvm.tune import device as tune_device
from wino_tvm.tune.best import best_config
from wino_tvm.tune.device import Gpu, device_matches, known_device, resolve_limits, visible_gpus
from wino_tvm.tune.manifest import Entry, Manifest
from wino_tvm.tune.measure import RunResult, Settings, measure_batch, outcome, run_once
from wino_tvm.tune.records import Record, candidate_record, read_records
from wino_tvm.tune.search import BASELINE, baselines, family, select
from wino_tvm.tune.space import (
    RULES,
    Axes,
    Candidate,
    accumulator_registers,
    config_space,
    l2_residency,
    max_blocks,
    refusal,
    shared_memory,
    sm_fill,
    wmma_divisibility,
)
from wino_tvm.workload import Conv2dWorkload

REPO = Path(__file__).resolve().parents[1]
H100 = KNOWN_DEVICES["h100"]
PAPER = Conv2dWorkload(1, 224, 224, 64, 64, "fp16", 4)  # ntiles 3136, alpha 6
H100_NAME = "NVIDIA H100 80GB HBM3"


# ---- pruning rules --------------------------------------------------------------------------


def test_wmma_divisibility_refuses_illegal_tilings() -> None:
    assert wmma_divisibility(PAPER, KernelConfig(), H100) is None
    assert "tb_m=24" in wmma_divisibility(PAPER, KernelConfig(tb_m=24), H100)
    assert "K=64 is not a multiple of tb_n=128" in wmma_divisibility(
        PAPER, KernelConfig(tb_n=128), H100)
    odd_c = Conv2dWorkload(1, 8, 8, 40, 64)
    assert "C=40" in wmma_divisibility(odd_c, KernelConfig(), H100)
    assert "pad=8" in wmma_divisibility(PAPER, KernelConfig(pad=8), H100)


def test_shared_memory_uses_the_kernels_real_footprint() -> None:
    cfg = KernelConfig(tb_m=64, tb_n=64, tb_k=64)
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
    full = KernelConfig(*tiles, fusion="full", u_smem=u_smem)
    assert full.m_row_elems(wl) == row
    operands = full.with_(fusion="shmem").smem_bytes(wl)
    acc = ACCUMULATOR_BYTES[accum]
    assert full.smem_bytes(wl) == max(operands, 16 * tiles[0] * row * acc)
    narrow = max(operands, 16 * tiles[0] * (tiles[1] + 16 // acc) * acc)
    assert shared_residency(full.smem_bytes(wl)) == shared_residency(narrow)
    assert full.with_(fusion="none").m_row_elems(wl) == tiles[1] + 16 // acc


def test_m_rows_stay_narrow_where_the_carveout_would_grow() -> None:
    """int8 m=4 32/32/32: one block either way, but 162 -> 180 KB moves the carveout from 164
    to 196 KB (0.94-1.01x on the H100, bench/results/h100/m_rows_ab/)."""
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="int8", m=4)
    cfg = KernelConfig(32, 32, 32, fusion="full")
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
    assert KernelConfig(*tiles, fusion="full", **knobs).ot_row_step(wl) == step


def test_otrans_rows_need_whole_rounds() -> None:
    """m=4 (alpha 6): 2 rows x 6 warps do not divide 32 tiles, so rows stay adjacent."""
    wl = Conv2dWorkload(1, 960, 960, 64, 64, m=4, accum="fp16")
    assert KernelConfig(32, 32, 32, fusion="full", ot_channels=2).ot_row_step(wl) == 1


def test_l2_residency_applies_to_llc_only() -> None:
    cfg = KernelConfig(tb_m=32, tb_k=32, fusion="llc")
    resident = min(cfg.blocks(PAPER), H100.sms)
    need = 2 * 36 * 32 * 32 * resident
    assert l2_residency(PAPER, cfg, dataclasses.replace(H100, l2_bytes=need)) is None
    tight = dataclasses.replace(H100, l2_bytes=need - 1)
    assert f"llc working set {need} B" in l2_residency(PAPER, cfg, tight)
    assert l2_residency(PAPER, cfg.with_(fusion="shmem"), tight) is None


def test_sm_fill_needs_a_block_per_sm() -> None:
    # 3136 tiles / 128 -> 25 row blocks (rounded up), K / 64 -> 1: 25 blocks < 132 SMs.
    assert "25 thread blocks < 132" in sm_fill(PAPER, KernelConfig(tb_m=128, tb_n=64), H100)
    assert sm_fill(PAPER, KernelConfig(tb_m=16, tb_n=64), H100) is None  # 196 blocks


def test_sm_fill_is_softer_for_workloads_too_small_to_fill_the_gpu() -> None:
    tiny = Conv2dWorkload(1, 7, 7, 512, 512, "fp16", 4)  # 4 tiles
    assert max_blocks(tiny) == 64  # 32x8 fragments: one row block x 512/8 column blocks
    finest = KernelConfig(tb_m=32, tb_n=8, frag_m=32, frag_n=8)
    assert finest.blocks(tiny) == 64 and sm_fill(tiny, finest, H100) is None
    assert "32 thread blocks < 64" in sm_fill(tiny, KernelConfig(), H100)
    space, _ = config_space(tiny, H100)
    assert space, "a small workload keeps a non-empty space"


def test_accumulator_registers_cap() -> None:
    # alpha 6 x (32/16) x (32/16) = 24 fp32 fragments x 8 registers = 192: at the cap.
    assert accumulator_registers(PAPER, KernelConfig(tb_m=32, tb_n=32), H100) is None
    assert "48 accumulator fragments = 384 registers" in accumulator_registers(
        PAPER, KernelConfig(tb_m=64, tb_n=32), H100)
    # fp16 accumulators pack two per register: 48 fragments fit.
    half_acc = dataclasses.replace(PAPER, accum="fp16")
    assert accumulator_registers(half_acc, KernelConfig(tb_m=64, tb_n=32), H100) is None
    # Four warp groups of 128 threads leave each thread 128 registers: 65 for accumulators.
    grouped = KernelConfig(32, 32, 64, fusion="full", persist=True, groups=4)
    wl = dataclasses.replace(PAPER, m=2)
    assert "16 accumulator fragments = 128 registers > 65" in accumulator_registers(
        wl, grouped, H100)
    assert accumulator_registers(wl, grouped.with_(tb_m=16), H100) is None


def test_config_space_keeps_only_what_every_rule_accepts() -> None:
    small = Axes(tb_m=(16, 32, 64), tb_n=(16, 32, 64), tb_k=(16, 64))
    space, refused = config_space(PAPER, H100, small)
    # m, tb_m, tb_n, tb_k, frag, fusion, vec, pad, u_smem, persist, groups, ot_channels, k_split,
    # m_rounds (min_blocks: 0 only)
    total = 2 * 3 * 3 * 2 * 3 * len(FUSIONS) * 1 * 2 * 2 * 2 * 4 * 2 * 3 * 2
    # lane: m, tb_n, tb_k, k_split, lane_groups, lane_stages, lane_tap_split
    total += (2 * 3 * 2 * 3 * len(small.lane_groups) * len(small.lane_stages)
              * len(small.lane_tap_split))
    assert len(space) + sum(refused.values()) == total
    # fp32 accumulators: 16 channels per warp (32 with the tap split), chunks of tb_k channels
    # in 2 or 3 buffers; at most 8 warps (groups x k_split; with the tap split x 2, at most 9)
    lane = {(c.cfg.k_split, c.cfg.groups, c.cfg.tap_split) for c in space if c.cfg.lane}
    assert lane == {(1, 1, 1), (1, 2, 1), (1, 3, 1), (1, 4, 1), (1, 6, 1), (1, 8, 1), (2, 1, 1),
                    (2, 2, 1), (2, 3, 1), (2, 4, 1), (4, 1, 1), (4, 2, 1), (1, 1, 2), (1, 2, 2),
                    (1, 3, 2), (1, 4, 2), (2, 1, 2), (2, 2, 2)}
    assert {(c.wl.m, c.cfg.tb_n, c.cfg.tb_k, c.cfg.stages, c.cfg.tap_split)
            for c in space if c.cfg.lane} == {
        (2, 16 * split, tb_k, stages, split)
        for tb_k in (16, 64) for stages in (2, 3) for split in (1, 2)}
    space = [c for c in space if not c.cfg.lane]
    assert set(refused) <= {rule.__name__ for rule in RULES}
    for cand in space:
        assert refusal(cand.wl, cand.cfg, H100) is None
        assert cand.cfg.problems(cand.wl, H100) == []
    assert {c.wl.m for c in space} == {2, 4}
    assert len({c.name for c in space}) == len(space)
    assert {c.cfg.u_smem for c in space} == {True, False}
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
    space, _ = config_space(wl, H100, Axes(m=(2, 4, 6), tb_m=(16,), tb_n=(16,), tb_k=(16,)))
    assert {c.wl.m for c in space} == {2, 4}
    assert {c.wl.accum for c in space} == {"int32"}


def test_candidate_name_round_trip() -> None:
    cand = Candidate(dataclasses.replace(PAPER, accum="fp16", m=2), KernelConfig(tb_k=32, pad=0))
    assert cand.name.startswith("N1_H224_W224_C64_K64-fp16-fp16-m2-")
    assert Candidate.from_config_name(cand.wl.shape_dict(), cand.cfg.name(cand.wl)) == cand


# ---- device limits --------------------------------------------------------------------------


def test_known_device_and_name_matching() -> None:
    assert known_device(H100_NAME) == H100
    assert known_device("NVIDIA GeForce RTX 2080 Ti") == KNOWN_DEVICES["rtx2080ti"]
    assert known_device("NVIDIA L4") is None
    assert device_matches("h100", H100_NAME) and device_matches(H100_NAME, H100_NAME)
    assert not device_matches("a100", H100_NAME) and not device_matches("", H100_NAME)


def test_resolve_limits_table_flags_and_no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tune_device, "gpu_limits", lambda: None)
    assert resolve_limits("h100") == H100
    assert resolve_limits("a100", sms=100).sms == 100
    assert resolve_limits(sms=10, smem=1000, l2=2000) == DeviceLimits("custom", 10, 1000, 2000)
    with pytest.raises(WinoError, match="pass --device"):
        resolve_limits(sms=10)
    with pytest.raises(WinoError, match="unknown --device 'v100'"):
        resolve_limits("v100")
    gpu = DeviceLimits(H100_NAME, 114, 1, 2)
    monkeypatch.setattr(tune_device, "gpu_limits", lambda: gpu)
    assert resolve_limits() == gpu
    assert resolve_limits("h100") == H100  # the flag names the target, GPU or not


def _script(path: Path, body: str) -> None:
    path.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    path.chmod(0o755)


def test_visible_gpus_honours_cuda_visible_devices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [f"{i}, GPU-{i}, {H100_NAME}, 570.1" for i in range(3)]
    _script(tmp_path / "nvidia-smi", f"print({chr(10).join(rows)!r})")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert [g.select for g in visible_gpus()] == ["0", "1", "2"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,GPU-0,7,1")
    assert visible_gpus() == [Gpu("2", H100_NAME, "570.1"), Gpu("0", H100_NAME, "570.1")]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert visible_gpus() == []


def test_nvcc_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _script(tmp_path / "nvcc", 'print("Cuda compilation tools, release 13.0, V13.0.88")')
    monkeypatch.setenv("PATH", str(tmp_path))
    assert tune_device.nvcc_version() == "13.0.88"


# ---- records, selection, apply-best ---------------------------------------------------------


def _record(wl: Conv2dWorkload, cfg: KernelConfig, us: float, **changes) -> Record:
    values = {"device": H100_NAME, "nvcc": "13.0.88", "driver": "570.1", "status": "ok",
              "median_us": us, "rel_l2_err": 1e-3, **changes}
    return candidate_record(Candidate(wl, cfg), **values)


def test_record_round_trip(tmp_path: Path) -> None:
    rec = _record(PAPER, KernelConfig(tb_m=32, fusion="llc"), 12.5, tflops=3.2, commit="abc")
    assert Record.from_json(rec.to_json()) == rec
    assert rec.kernel_config() == KernelConfig(tb_m=32, fusion="llc")
    assert (rec.workload_key, rec.m, rec.fusion, rec.accum) == (PAPER.key, 4, "llc", "fp32")
    data = json.loads(rec.to_json())
    assert data["workload"] == {"N": 1, "H": 224, "W": 224, "C": 64, "K": 64}
    assert data["timestamp"].endswith("+00:00")
    with pytest.raises(WinoError, match="status 'meh'"):
        dataclasses.replace(rec, status="meh")
    log = tmp_path / "log.jsonl"
    log.write_text(rec.to_json() + "\n\n" + rec.to_json()[:40] + "\n")  # killed mid-write
    assert read_records(log) == [rec]


def test_select_exhaustive_or_stratified() -> None:
    space, _ = config_space(PAPER, H100)
    picked, strategy = select(space[:10], trials=10)
    assert strategy == "exhaustive" and picked == space[:10]
    always = baselines(PAPER, H100)
    assert [(c.wl.m, c.cfg) for c in always] == [(2, BASELINE), (4, BASELINE)]
    picked, strategy = select(space, trials=20, seed=3, always=always)
    assert strategy == "stratified" and picked[:2] == always
    assert len(picked) == 20 and len(set(picked)) == 20
    assert select(space, trials=20, seed=3, always=always)[0] == picked
    assert select(space, trials=20, seed=4, always=always)[0] != picked


def test_stratified_sample_covers_every_family() -> None:
    """A budget of one config per family measures each family once, the small ones included
    (the persistent C = 128 configs are 30 of ~770)."""
    wl = Conv2dWorkload(128, 28, 28, 128, 128, "fp16", 2)
    space, _ = config_space(wl, H100)
    families = {family(c) for c in space}
    persistent = [c for c in space if c.cfg.persist]
    assert len(families) > 4 and 0 < len(persistent) < len(space) // 10
    for seed in range(3):
        picked, strategy = select(space, trials=len(families), seed=seed)
        assert strategy == "stratified"
        assert sorted(family(c) for c in picked) == sorted(families)
    picked, _ = select(space, trials=2 * len(families), seed=0)
    assert all(sum(family(c) == f for c in picked) >= min(2, sum(family(c) == f for c in space))
               for f in families)


def test_baseline_is_measured_even_where_pruned() -> None:
    small = Conv2dWorkload(1, 56, 56, 64, 64, "fp16", 4)  # m=4: 52 blocks < 56 possible
    assert sm_fill(small, BASELINE, H100) is not None
    assert [c.wl.m for c in baselines(small, H100)] == [2, 4]
    tight = dataclasses.replace(H100, smem_per_block=1024)  # but never one that cannot run
    assert baselines(small, tight) == []


def test_best_config_picks_the_fastest_correct_record(tmp_path: Path) -> None:
    m2 = dataclasses.replace(PAPER, m=2)
    other_shape = Conv2dWorkload(1, 448, 448, 64, 64)
    records = [
        _record(PAPER, KernelConfig(tb_m=16), 30.0),
        _record(PAPER, KernelConfig(tb_m=32), 20.0),  # the answer
        _record(m2, KernelConfig(tb_m=32), 25.0),
        _record(PAPER, KernelConfig(tb_m=64), 5.0, status="wrong", rel_l2_err=0.5),
        _record(PAPER, KernelConfig(fusion="llc"), 4.0, device="NVIDIA A100-SXM4-40GB"),
        _record(other_shape, KernelConfig(), 1.0),
        _record(dataclasses.replace(PAPER, accum="fp16"), KernelConfig(), 2.0),
        _record(PAPER, KernelConfig(tb_n=32), 1.0, status="timeout", median_us=None),
    ]
    log = tmp_path / "h100.jsonl"
    log.write_text("".join(r.to_json() + "\n" for r in records))
    cfg, rec = best_config(log, PAPER, "h100")
    assert cfg == KernelConfig(tb_m=32) and rec["m"] == 4 and rec["median_us"] == 20.0
    assert best_config(log, PAPER, H100_NAME, m=2)[1]["median_us"] == 25.0
    assert best_config(log, PAPER, "h100", fusion="llc") is None
    assert best_config(log, PAPER, "a100")[0] == KernelConfig(fusion="llc")
    assert best_config(log, Conv2dWorkload(2, 8, 8, 16, 16), "h100") is None
    # a config the code does not take for the workload (say, logged before a rule was added; here
    # F(2, 3) row pairs of compact rows at an odd H) is not a candidate, however fast it was
    odd = Conv2dWorkload(128, 7, 7, 512, 512, "fp16", 2, accum="fp32")
    padded = KernelConfig.f23_config(3, persist=True)
    refused = padded.with_(compact_rows=True, row_pairs=True)
    log.write_text(_record(odd, refused, 1.0).to_json() + "\n"
                   + _record(odd, padded, 2.0).to_json() + "\n")
    assert best_config(log, odd, "h100")[0] == padded
    with pytest.raises(WinoError, match="not found"):
        best_config(tmp_path / "missing.jsonl", PAPER, "h100")


def test_a_remeasurement_supersedes_the_earlier_record(tmp_path: Path) -> None:
    old_fast = _record(PAPER, KernelConfig(tb_m=32), 10.0)
    records = [
        old_fast,
        _record(PAPER, KernelConfig(tb_m=16), 30.0),
        _record(PAPER, KernelConfig(tb_m=32), 40.0),  # the same config, measured again: slower
    ]
    log = tmp_path / "h100.jsonl"
    log.write_text("".join(r.to_json() + "\n" for r in records))
    assert best_config(log, PAPER, "h100")[0] == KernelConfig(tb_m=16)
    # A later failure takes the config out; on another device the old record still counts.
    records += [_record(PAPER, KernelConfig(tb_m=16), 5.0, status="wrong", rel_l2_err=0.5),
                dataclasses.replace(old_fast, device="NVIDIA A100-SXM4-40GB")]
    log.write_text("".join(r.to_json() + "\n" for r in records))
    assert best_config(log, PAPER, "h100")[0] == KernelConfig(tb_m=32)
    assert best_config(log, PAPER, "a100")[1]["median_us"] == 10.0


def test_records_with_an_epilogue_are_their_own_workload(tmp_path: Path) -> None:
    fused = dataclasses.replace(PAPER, epilogue=("bias", "residual", "relu"))
    cand = Candidate(fused, KernelConfig(tb_m=32))
    assert cand.name.endswith("-bias_residual_relu") and cand.key[2] == "bias,residual,relu"
    assert Candidate.from_config_name(fused.shape_dict(), cand.cfg.name(fused),
                                      "bias,residual,relu") == cand
    assert Entry.of(cand, None).candidate() == cand
    plain_fast = _record(PAPER, KernelConfig(tb_m=32), 10.0)
    records = [plain_fast, _record(fused, KernelConfig(tb_m=32), 40.0),
               _record(fused, KernelConfig(tb_m=16), 30.0)]
    assert records[1].epilogue == "bias,residual,relu" and plain_fast.epilogue == ""
    assert records[1].key != plain_fast.key
    log = tmp_path / "h100.jsonl"
    # Records from before the field load as the plain convolution's.
    old = json.loads(plain_fast.to_json())
    del old["epilogue"]
    log.write_text(json.dumps(old) + "\n" + "".join(r.to_json() + "\n" for r in records[1:]))
    assert best_config(log, PAPER, "h100")[1]["median_us"] == 10.0
    assert best_config(log, fused, "h100")[0] == KernelConfig(tb_m=16)
    assert best_config(log, dataclasses.replace(PAPER, epilogue=("relu",)), "h100") is None
    # The build takes the epilogue's own best, else the plain convolution's with a note.
    def tuned(epilogue: str) -> KernelConfig:
        args = build_args(["--dtype", "fp16", "--fusion", "full", "--tuning-log", str(log),
                           "--epilogue", epilogue])
        return build_config(args)[1]
    assert tuned("bias,residual,relu") == KernelConfig(tb_m=16)
    assert tuned("relu") == KernelConfig(tb_m=32)


def test_records_of_an_int8_y_are_their_own_case(tmp_path: Path, capsys) -> None:
    # int8 inputs write an f32 y by default; an int8 y is another kernel (and much less DRAM)
    plain = Conv2dWorkload(32, 14, 14, 256, 256, "int8", 2, accum="fp32")
    int8_y = dataclasses.replace(plain, out="int8")
    persistent, split = KernelConfig.f23_config(3, persist=True), KernelConfig.f23_config(3, 2)
    cand = Candidate(int8_y, persistent)
    assert cand.key[3] == "int8" and Candidate(plain, persistent).key[3] == "fp32"
    assert Candidate.from_config_name(int8_y.shape_dict(), cand.cfg.name(int8_y), "",
                                      "int8") == cand
    assert Entry.of(cand, None).candidate() == cand
    plain_fast = _record(plain, persistent, 10.0)
    records = [plain_fast, _record(int8_y, persistent, 9.0), _record(int8_y, split, 8.0)]
    assert records[1].out == "int8" and records[1].key != plain_fast.key
    # Records from before the field load as the dtype's default y's.
    old = json.loads(plain_fast.to_json())
    del old["out"]
    assert Record.from_json(json.dumps(old)).key == plain_fast.key
    log = tmp_path / "h100.jsonl"
    log.write_text(json.dumps(old) + "\n" + "".join(r.to_json() + "\n" for r in records[1:]))
    assert best_config(log, plain, "h100")[1]["median_us"] == 10.0
    assert best_config(log, int8_y, "h100")[0] == split
    assert best_config(log, dataclasses.replace(plain, out="fp16"), "h100") is None
    # The build takes the y's own best, else the default y's with a note, keeping its own y.
    def tuned(out: str) -> tuple[Conv2dWorkload, KernelConfig]:
        args = build_args(["--dtype", "int8", "--accum", "fp32", "--f23", "--shape",
                           "32,14,14,256,256", "--tuning-log", str(log), "--out-dtype", out])
        return build_config(args)
    assert tuned("int8") == (int8_y, split)
    assert tuned("fp16") == (dataclasses.replace(plain, out="fp16"), persistent)
    assert "using its best config with an fp32 y" in capsys.readouterr().out


# ---- measure: outcomes, resume, failures, GPUs ----------------------------------------------


HARNESS_OK = {"device": H100_NAME, "median_us": 10.0, "tflops": 1.0, "rel_l2_err": 1e-3,
              "max_abs_err": 0.01, "nonfinite": 0, "tolerance": 1e-2, "correct": True}


def test_outcome_of_each_kind_of_run() -> None:
    assert outcome(RunResult(HARNESS_OK))["status"] == "ok"
    wrong = outcome(RunResult({**HARNESS_OK, "correct": False, "rel_l2_err": 0.5}))
    assert wrong["status"] == "wrong" and wrong["reason"] == "rel_l2_err 0.5 > tolerance 0.01"
    assert outcome(RunResult(None, "exited with status 1"))["status"] == "run_error"
    assert outcome(RunResult(None, "too slow", timed_out=True))["status"] == "timeout"


def test_run_once_tells_timeouts_from_errors() -> None:
    def slow(binary: Path, args: list[str], timeout_s: float) -> dict:
        time.sleep(timeout_s)
        raise WinoError("did not finish")

    def broken(binary: Path, args: list[str], timeout_s: float) -> dict:
        raise WinoError("exited with status 1")

    assert run_once(slow, Path("b"), [], 0.05).timed_out
    result = run_once(broken, Path("b"), [], 10.0)
    assert not result.timed_out and result.error == "exited with status 1"


def _batch(tmp_path: Path, cands: list[Candidate], failed: dict[str, str] | None = None) -> Path:
    batch = tmp_path / "batch"
    batch.mkdir(exist_ok=True)
    failed = failed or {}
    entries = tuple(Entry.of(c, failed.get(c.name)) for c in cands)
    Manifest(entries, "sm_90", "abc1234", dataclasses.asdict(H100)).write(batch)
    return batch


class FakeGpu:
    """compile_fn and run_fn doubles that count calls and fail where told."""

    def __init__(self, compile_fail: set[str] = frozenset(), wrong: set[str] = frozenset(),
                 device: str = H100_NAME):
        self.compiled: list[str] = []
        self.ran: list[str] = []
        self.compile_fail, self.wrong, self.device = compile_fail, wrong, device

    def compile(self, folder: Path, arch: str) -> Path:
        self.compiled.append(folder.name)
        if folder.name in self.compile_fail:
            raise WinoError("nvcc failed on program.cu for sm_90:\nerror: boom")
        return folder / "wino_bench"

    def run(self, binary: Path, args: list[str], timeout_s: float) -> dict:
        name = binary.parent.name
        self.ran.append(name)
        assert args == ["--checks", "3", "--iters", "100", "--warmup", "20"]
        return {**HARNESS_OK, "device": self.device, "median_us": 5.0 + len(self.ran),
                "correct": name not in self.wrong}


GPUS = [Gpu("0", H100_NAME, "570.1")]
SETTINGS = Settings("sm_90", "13.0.88", jobs=2)


def _measure(batch: Path, log: Path, fake: FakeGpu, **kwargs) -> list[Record]:
    return measure_batch(batch, log, GPUS, SETTINGS, fake.compile, fake.run, echo=lambda _: None,
                         **kwargs)


def test_measure_records_every_candidate_and_resumes(tmp_path: Path) -> None:
    space, _ = config_space(PAPER, H100)
    cands = space[:6]
    bad_build, bad_nvcc, bad_result = cands[0].name, cands[1].name, cands[2].name
    batch = _batch(tmp_path, cands[:4], failed={bad_build: "TVMError: no"})
    log = tmp_path / "logs" / "h100.jsonl"
    fake = FakeGpu(compile_fail={bad_nvcc}, wrong={bad_result})
    records = _measure(batch, log, fake)
    status = {r.config: r.status for r in read_records(log)}
    assert len(records) == 4 and len(status) == 4
    names = {c.name: c.cfg.name(c.wl) for c in cands}
    assert status[names[bad_build]] == "build_error"
    assert status[names[bad_nvcc]] == "compile_error"
    assert status[names[bad_result]] == "wrong"
    assert status[names[cands[3].name]] == "ok"
    assert bad_build not in fake.compiled
    assert sorted(fake.ran) == sorted([bad_result, cands[3].name])
    rec = next(r for r in records if r.status == "compile_error")
    assert "error: boom" in rec.reason and rec.device == H100_NAME and rec.commit == "abc1234"
    assert (rec.nvcc, rec.driver) == ("13.0.88", "570.1")

    # Resume: nothing left; a grown batch measures only its new candidates.
    again = FakeGpu()
    assert _measure(batch, log, again) == [] and again.compiled == []
    _batch(tmp_path, cands, failed={bad_build: "TVMError: no"})
    grown = FakeGpu()
    assert {r.config for r in _measure(batch, log, grown)} == {names[c.name] for c in cands[4:]}
    assert sorted(grown.ran) == sorted(c.name for c in cands[4:])
    # Another device has measured nothing; --retry-failed redoes only machine-side failures.
    a100 = "NVIDIA A100-SXM4-40GB"
    fake_a100 = FakeGpu(device=a100)
    assert len(measure_batch(batch, log, [Gpu("0", a100, "570.1")], SETTINGS,
                             fake_a100.compile, fake_a100.run, echo=lambda _: None)) == 6
    retry = FakeGpu()
    assert [r.status for r in _measure(batch, log, retry, retry_failed=True)] == ["ok"]
    assert retry.compiled == [bad_nvcc]


def report_gpu(binary: Path, args: list[str], timeout_s: float) -> dict:
    """A run_fn that says which GPU its process was pinned to (module level: it is pickled)."""
    return {**HARNESS_OK, "device": f"GPU {os.environ['CUDA_VISIBLE_DEVICES']}"}


@pytest.mark.slow
def test_measure_spreads_over_gpus_one_process_each(tmp_path: Path) -> None:
    space, _ = config_space(PAPER, H100)
    batch = _batch(tmp_path, space[:6])
    gpus = [Gpu("0", H100_NAME, "570.1"), Gpu("3", H100_NAME, "570.1")]
    records = measure_batch(batch, tmp_path / "log.jsonl", gpus, SETTINGS,
                            FakeGpu().compile, report_gpu, echo=lambda _: None)
    assert len(records) == 6 and {r.device for r in records} <= {"GPU 0", "GPU 3"}


# ---- TVM-free modules, CLI --------------------------------------------------------------------


def test_gpu_side_modules_do_not_import_tvm() -> None:
    modules = ["measure", "records", "device", "search", "best", "manifest", "space", "__main__"]
    code = (f"import sys\nfor m in {modules}: __import__('wino_tvm.tune.' + m)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tvm', 'tvm_ffi')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_cli_space_and_best(tmp_path: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "wino_tvm.tune", *args], cwd=REPO,
                              capture_output=True, text=True)

    out = cli("space", "--workload", "1,224,224,64,64", "--device", "h100", "--tb-m", "16")
    assert out.returncode == 0 and "N1_H224_W224_C64_K64 fp16/fp32:" in out.stdout
    log = tmp_path / "h100.jsonl"
    log.write_text(_record(PAPER, KernelConfig(tb_m=32), 20.0).to_json() + "\n")
    best = cli("best", "--log", str(log), "--workload", "1,224,224,64,64", "--device-name", "h100")
    assert best.returncode == 0 and KernelConfig(tb_m=32).name(PAPER) in best.stdout
    none = cli("best", "--log", str(log), "--workload", "1,56,56,64,64", "--device-name", "h100")
    assert none.returncode == 1 and "no record for this workload and device" in none.stdout
    # int8 on fp16 MMAs takes m=2 only: the space (and build) start from a workload it takes;
    # an int8 y is its own case, labelled so
    int8 = cli("space", "--workload", "32,14,14,256,256", "--dtype", "int8", "--accum", "fp32",
               "--out-dtype", "int8", "--m", "2", "--fusion", "full", "--f23", "0,1",
               "--device", "h100")
    assert int8.returncode == 0, int8.stderr
    assert "N32_H14_W14_C256_K256 int8/fp32 y int8:" in int8.stdout
    # and so does best, without --m
    lane = cli("best", "--log", str(log), "--workload", "1,224,224,64,64", "--dtype", "int8",
               "--accum", "fp16", "--out-dtype", "int8", "--device-name", "h100")
    assert lane.returncode == 1 and "int8/fp16 y int8" in lane.stdout, lane.stderr


# ---- builder: real TVM + reconstructor, compiled by nvcc ------------------------------------


@pytest.mark.nvcc
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_builder_candidates_compile_with_nvcc(tmp_path: Path) -> None:
    from wino_tvm.tune.builder import build_batch  # imports TVM and the reconstructor

    wl = Conv2dWorkload(1, 8, 8, 16, 32, "fp16", 2)
    cands = [Candidate(wl, KernelConfig(fusion="shmem")),
             Candidate(dataclasses.replace(wl, dtype="int8", accum="int32"),
                       KernelConfig(tb_m=32, frag_m=32, frag_n=8, pad=0, fusion="llc"))]
    entries = build_batch(cands, tmp_path, "sm_90", jobs=1, log=lambda _: None)
    assert [e.reason for e in entries] == ["", ""] and all(e.built and e.commit for e in entries)
    for entry in entries:
        folder = tmp_path / entry.name
        subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-diag-suppress=177", "-c",
                        "-o", str(folder / "program.o"), str(folder / "program.cu")],
                       check=True, capture_output=True, text=True)
        assert (folder / "program.o").stat().st_size > 0
