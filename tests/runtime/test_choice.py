"""The runtime's kernel choice per layer (no GPU): schemes within the accuracy bound, tuning
records of this device, the families' defaults, the user cache of decisions."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.math.tolerance import ACCURACY_BAR
from wino_tvm.runtime.choice import (
    CUDNN,
    Choice,
    ChoiceCache,
    Policy,
    candidates,
    choice_key,
    defaults,
    kernel_workload,
    logged,
    schemes,
    unsupported_reason,
)
from wino_tvm.workload import Conv2dWorkload

H200 = KNOWN_DEVICES["h200"]
H100_LOG = Path(__file__).resolve().parents[2] / "tuning_logs" / "h100.jsonl"


def fp16(*shape: int, **kw) -> Conv2dWorkload:
    return Conv2dWorkload(*shape, dtype="fp16", **kw)


def test_schemes_within_the_default_bound_are_f2x2_and_f23_only():
    # C=64: fp16 accumulators (9.4e-4) and fp32 ones (6.2e-4) are within 1.05e-3; m=4 is not
    got = {(wl.accum, wl.m) for wl in schemes(fp16(1, 56, 56, 64, 64), ACCURACY_BAR["fp16"])}
    assert got == {("fp32", 2), ("fp16", 2)}
    # C=128: fp16 accumulation measured 1.06e-3, beyond the bar
    got = {(wl.accum, wl.m) for wl in schemes(fp16(1, 56, 56, 128, 128), ACCURACY_BAR["fp16"])}
    assert got == {("fp32", 2)}
    # a looser bound admits the larger tiles where a family builds them
    loose = {(wl.accum, wl.m) for wl in schemes(fp16(1, 56, 56, 128, 128), 1e-2)}
    assert ("fp16", 2) in loose


def test_defaults_rank_f23_first_from_c128_and_lane_below():
    first = defaults(fp16(32, 14, 14, 256, 256), H200, ACCURACY_BAR["fp16"])[0]
    assert first[2] == "f23" and first[0].accum == "fp32"
    first = defaults(fp16(1, 720, 1280, 64, 64), H200, ACCURACY_BAR["fp16"])[0]
    assert first[2] == "lane" and first[0].accum == "fp16"
    for wl, cfg, _ in defaults(fp16(32, 28, 28, 128, 128), H200, ACCURACY_BAR["fp16"]):
        assert cfg.problems(wl, H200) == []


def test_unsupported_shape_has_no_candidates_and_a_reason():
    base = fp16(1, 128, 128, 512, 96)  # lane: U of C=512 does not fit; f23: K % 64 != 0
    assert candidates(base, H200, Policy()) == []
    why = unsupported_reason(base, H200, Policy())
    assert "lane" in why and "f23" in why
    assert candidates(fp16(1, 56, 56, 24, 24), H200, Policy()) == []  # K: neither family's


def test_other_c_runs_padded_to_the_next_16_channels(tmp_path: Path):
    """An RGB network's first layer (C = 3) and a VAE's (C = 4) run on kernels of C = 16."""
    for c in (3, 4, 24):
        base = fp16(32, 224, 224, c, 64, epilogue=("bias", "relu"))
        found = candidates(base, H200, Policy())
        assert found and all(wl.c == kernel_workload(base).c == -(-c // 16) * 16
                             and (wl.n, wl.h, wl.w, wl.k, wl.epilogue) == (32, 224, 224, 64,
                                                                           base.epilogue)
                             for wl, _, _ in found)
    assert kernel_workload(fp16(1, 8, 8, 64, 64)) == fp16(1, 8, 8, 64, 64)
    # one 16-channel step: the lane family's fp32 default first (the faster one there)
    first = candidates(fp16(1, 224, 224, 3, 64), H200, Policy())[0]
    assert first[2] == "lane default" and first[0].accum == "fp32"
    # the decision's cache gives the padded workload back
    store, base = ChoiceCache(H200, root=tmp_path), fp16(1, 224, 224, 3, 64)
    wl, cfg, why = candidates(base, H200, Policy())[0]
    store.put(choice_key(base, Policy()), Choice(wl, cfg, why, 2.0))
    assert store.get(choice_key(base, Policy()), base).wl == wl and wl.c == 16


def test_logged_reads_only_this_devices_records(tmp_path: Path):
    base = fp16(1, 224, 224, 64, 64)
    h100 = dataclasses.replace(H200, name="NVIDIA H100 80GB HBM3")
    found = logged(base, h100, ACCURACY_BAR["fp16"], [H100_LOG])
    assert found and all(wl.m == 2 for wl, _, _ in found)
    assert [r.median_us for _, _, r in found] == sorted(r.median_us for _, _, r in found)
    assert logged(base, H200, ACCURACY_BAR["fp16"], [H100_LOG]) == []
    # a record of this device comes first among the candidates
    wl, cfg, record = found[0]
    mine = dataclasses.replace(record, device=H200.name, median_us=1.0)
    log = tmp_path / "h200.jsonl"
    log.write_text(mine.to_json() + "\n")
    first = candidates(base, H200, Policy(logs=(log,)))[0]
    assert first[1].name(first[0]) == cfg.name(wl) and first[2].startswith("tuning record")


def test_logged_falls_back_to_records_without_the_epilogue(tmp_path: Path):
    base = fp16(1, 960, 960, 64, 64, epilogue=("relu",))
    h100 = dataclasses.replace(H200, name="H100")
    found = logged(base, h100, ACCURACY_BAR["fp16"], [H100_LOG])
    assert found and all(wl.epilogue == ("relu",) for wl, _, _ in found)
    assert all(r.epilogue == "" for _, _, r in found)


def test_choice_cache_round_trip(tmp_path: Path):
    store = ChoiceCache(H200, root=tmp_path)
    base = fp16(1, 56, 56, 64, 64)
    wl, cfg, why = candidates(base, H200, Policy())[0]
    key = choice_key(base, Policy())
    store.put(key, Choice(wl, cfg, why, 1.5))
    got = store.get(key, base)
    assert got.config == cfg and got.wl == wl and got.speedup == 1.5
    other = choice_key(fp16(1, 56, 56, 64, 64, epilogue=("relu",)), Policy())
    store.put(other, Choice(base, None, "cuDNN: 10.0 us"))
    assert store.get(other, base).config is None and store.get(other, base).name == CUDNN
    assert store.get("missing", base) is None
    # a stored config the code no longer takes is decided again, not used
    data = json.loads(store.path.read_text())
    data[key]["config"] = cfg.name(wl).replace("-g4", "-g12")
    store.path.write_text(json.dumps(data))
    assert store.get(key, base) is None


def test_decisions_timed_the_old_way_are_made_again(tmp_path: Path):
    """Before timing revision 2 cuDNN was timed with a weight it converted on every call; those
    decisions (the file without a revision) are not read."""
    store = ChoiceCache(H200, root=tmp_path)
    base = fp16(1, 56, 56, 64, 64)
    wl, cfg, why = candidates(base, H200, Policy())[0]
    key = choice_key(base, Policy())
    old = store.path.parent / f"{store.path.name.split('.')[0]}.json"
    old.parent.mkdir(parents=True)
    old.write_text(json.dumps({key: {"config": cfg.name(wl), "reason": why, "speedup": 2.0}}))
    assert store.path != old and store.get(key, base) is None


def test_policy_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="choose one of trust, verify, autotune"):
        Policy(mode="fast")


def test_choice_key_separates_bounds_and_modes():
    base = fp16(1, 56, 56, 64, 64)
    keys = {choice_key(base, Policy()), choice_key(base, Policy(bound=1e-2)),
            choice_key(base, Policy(mode="autotune"))}
    assert len(keys) == 3
