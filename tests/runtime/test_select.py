"""How verify decides between its candidates and cuDNN, with the timing replaced (no GPU)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("torch")

from wino_tvm.device import KNOWN_DEVICES  # noqa: E402
from wino_tvm.math.tolerance import ACCURACY_BAR  # noqa: E402
from wino_tvm.runtime import select  # noqa: E402
from wino_tvm.runtime.choice import Policy, logged  # noqa: E402
from wino_tvm.workload import Conv2dWorkload  # noqa: E402

H200 = KNOWN_DEVICES["h200"]
H100_LOG = Path(__file__).resolve().parents[2] / "tuning_logs" / "h100.jsonl"
BASE = Conv2dWorkload(1, 224, 224, 64, 64, dtype="fp16")
CUDNN_US = 100.0


@pytest.fixture
def verify(tmp_path: Path, monkeypatch) -> tuple[Policy, list, dict]:
    """A verify policy whose only log holds one H200 record of BASE; the list of what each
    measure() call timed; the times it reports (a test may change them) for a record and a
    default, against cuDNN's 100 us."""
    monkeypatch.setenv("WINO_TVM_CACHE", str(tmp_path / "cache"))
    h100 = dataclasses.replace(H200, name="NVIDIA H100 80GB HBM3")
    _, _, record = logged(BASE, h100, ACCURACY_BAR["fp16"], [H100_LOG])[0]
    log = tmp_path / "h200.jsonl"
    log.write_text(dataclasses.replace(record, device=H200.name).to_json() + "\n")
    calls: list = []
    times = {"record": 200.0, "default": 50.0}

    def measure(pool, base, device, arch, record_to):
        calls.append([why for _, _, why in pool])
        return [(times["record" if why.startswith("tuning record") else "default"], wl, cfg, why)
                for wl, cfg, why in pool], CUDNN_US

    monkeypatch.setattr(select, "measure", measure)
    return Policy(logs=(log,)), calls, times


def test_a_record_that_loses_gives_way_to_a_default_that_wins(verify):
    policy, calls, _ = verify
    choice = select.decide(BASE, H200, "sm_90", policy)
    assert [len(c) for c in calls] == [1, 1]
    assert calls[0][0].startswith("tuning record") and calls[1][0].endswith(" default")
    assert choice.config is not None and choice.reason.endswith("default; measured 50.0 us "
                                                                "against cuDNN's 100.0 us")
    assert choice.speedup == pytest.approx(2.0)


def test_a_record_that_wins_is_the_only_one_timed(verify):
    policy, calls, times = verify
    times["record"] = 80.0
    choice = select.decide(BASE, H200, "sm_90", policy)
    assert len(calls) == 1 and choice.reason.startswith("tuning record")


def test_cudnn_when_the_default_loses_too(verify):
    policy, calls, times = verify
    times["default"] = 99.0  # faster, but not by the 1.03x margin
    choice = select.decide(BASE, H200, "sm_90", policy)
    assert len(calls) == 2 and choice.config is None
    assert choice.reason == "cuDNN: 100.0 us, the best candidate 200.0 us"


def test_a_default_that_loses_is_not_followed_by_another(tmp_path: Path, monkeypatch):
    """Without a record the first default is verify's only candidate: the defaults are ranked
    by promise, and another build per losing layer would buy little."""
    monkeypatch.setenv("WINO_TVM_CACHE", str(tmp_path / "cache"))
    calls: list = []

    def measure(pool, base, device, arch, record_to):
        calls.append(pool)
        return [(200.0, wl, cfg, why) for wl, cfg, why in pool], CUDNN_US

    monkeypatch.setattr(select, "measure", measure)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    choice = select.decide(BASE, H200, "sm_90", Policy(logs=(empty,)))
    assert len(calls) == 1 and calls[0][0][2].endswith(" default") and choice.config is None
