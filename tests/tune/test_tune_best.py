"""Tuning records and apply-best: the record format, the fastest correct latest record, the
cases an epilogue or a y of its own make, and the build's pick from a log."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from tune_helpers import H100_NAME, PAPER, record

from wino_tvm import build
from wino_tvm.build import choose
from wino_tvm.build import parse_args as build_args
from wino_tvm.device import Gpu
from wino_tvm.errors import WinoError
from wino_tvm.kernels import FamilyConfig
from wino_tvm.kernels.f23.config import F23Config
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.tune.best import best_config, best_for_build
from wino_tvm.tune.manifest import Entry
from wino_tvm.tune.records import Record, read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload


@pytest.fixture
def on_h100(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build runs on an H100 (it looks up the log for the GPU here), whatever this machine
    has."""
    monkeypatch.setattr(build, "visible_gpus", lambda: [Gpu("0", H100_NAME, "570.1")])


def _write(log: Path, records: list[Record]) -> Path:
    log.write_text("".join(r.to_json() + "\n" for r in records))
    return log


def test_record_round_trip(tmp_path: Path) -> None:
    rec = record(PAPER, PkfConfig(tb_m=32, fusion="llc"), 12.5, tflops=3.2, commit="abc")
    assert Record.from_json(rec.to_json()) == rec
    assert rec.kernel_config() == PkfConfig(tb_m=32, fusion="llc")
    assert (rec.workload_key, rec.m, rec.fusion, rec.accum) == (PAPER.key, 4, "llc", "fp32")
    data = json.loads(rec.to_json())
    assert data["workload"] == {"N": 1, "H": 224, "W": 224, "C": 64, "K": 64}
    assert data["timestamp"].endswith("+00:00")
    with pytest.raises(WinoError, match="status 'meh'"):
        dataclasses.replace(rec, status="meh")
    log = tmp_path / "log.jsonl"
    log.write_text(rec.to_json() + "\n\n" + rec.to_json()[:40] + "\n")  # killed mid-write
    assert read_records(log) == [rec]
    # the template families' records: their fusion is full, their config parses back
    m2 = dataclasses.replace(PAPER, m=2)
    f23 = record(m2, F23Config(persist=True), 9.0)
    assert (f23.fusion, f23.kernel_config()) == ("full", F23Config(persist=True))


def test_best_config_picks_the_fastest_correct_record(tmp_path: Path) -> None:
    m2 = dataclasses.replace(PAPER, m=2)
    other_shape = Conv2dWorkload(1, 448, 448, 64, 64)
    records = [
        record(PAPER, PkfConfig(tb_m=16), 30.0),
        record(PAPER, PkfConfig(tb_m=32), 20.0),  # the answer
        record(m2, PkfConfig(tb_m=32), 25.0),
        record(PAPER, PkfConfig(tb_m=64), 5.0, status="wrong", rel_l2_err=0.5),
        record(PAPER, PkfConfig(fusion="llc"), 4.0, device="NVIDIA A100-SXM4-40GB"),
        record(other_shape, PkfConfig(), 1.0),
        record(dataclasses.replace(PAPER, accum="fp16"), PkfConfig(), 2.0),
        record(PAPER, PkfConfig(tb_n=32), 1.0, status="timeout", median_us=None),
    ]
    log = _write(tmp_path / "h100.jsonl", records)
    cfg, rec = best_config(log, PAPER, "h100")
    assert cfg == PkfConfig(tb_m=32) and rec["m"] == 4 and rec["median_us"] == 20.0
    assert best_config(log, PAPER, H100_NAME, m=2)[1]["median_us"] == 25.0
    assert best_config(log, PAPER, "h100", fusion="llc") is None
    assert best_config(log, PAPER, "a100")[0] == PkfConfig(fusion="llc")
    assert best_config(log, Conv2dWorkload(2, 8, 8, 16, 16), "h100") is None
    # the records read once by the caller give the same answer as the file
    assert best_config(read_records(log), PAPER, "h100") == (cfg, rec)
    # accurate: only schemes within the dtype's accuracy bar (fp16 F(4x4) is beyond it)
    assert best_config(log, PAPER, "h100", accurate=True)[1]["median_us"] == 25.0
    # a config the code does not take for the workload (say, logged before a rule was added; here
    # F(2, 3) row pairs of compact rows at an odd H) is not a candidate, however fast it was
    odd = Conv2dWorkload(128, 7, 7, 512, 512, "fp16", 2, accum="fp32")
    padded = F23Config(stages=3, persist=True)
    refused = padded.with_(compact_rows=True, row_pairs=True)
    assert refused.problems(odd)
    _write(log, [record(odd, refused, 1.0), record(odd, padded, 2.0)])
    assert best_config(log, odd, "h100")[0] == padded
    with pytest.raises(WinoError, match="not found"):
        best_config(tmp_path / "missing.jsonl", PAPER, "h100")


def test_a_remeasurement_supersedes_the_earlier_record(tmp_path: Path) -> None:
    old_fast = record(PAPER, PkfConfig(tb_m=32), 10.0)
    records = [
        old_fast,
        record(PAPER, PkfConfig(tb_m=16), 30.0),
        record(PAPER, PkfConfig(tb_m=32), 40.0),  # the same config, measured again: slower
    ]
    log = _write(tmp_path / "h100.jsonl", records)
    assert best_config(log, PAPER, "h100")[0] == PkfConfig(tb_m=16)
    # A later failure takes the config out; on another device the old record still counts.
    records += [record(PAPER, PkfConfig(tb_m=16), 5.0, status="wrong", rel_l2_err=0.5),
                dataclasses.replace(old_fast, device="NVIDIA A100-SXM4-40GB")]
    _write(log, records)
    assert best_config(log, PAPER, "h100")[0] == PkfConfig(tb_m=32)
    assert best_config(log, PAPER, "a100")[1]["median_us"] == 10.0


def test_records_with_an_epilogue_are_their_own_workload(tmp_path: Path, on_h100) -> None:
    fused = dataclasses.replace(PAPER, epilogue=("bias", "residual", "relu"))
    cand = Candidate(fused, PkfConfig(tb_m=32))
    assert cand.name.endswith("-bias_residual_relu") and cand.key[2] == "bias,residual,relu"
    assert Candidate.from_config_name(fused.shape_dict(), cand.cfg.name(fused),
                                      "bias,residual,relu") == cand
    assert Entry.of(cand, None).candidate() == cand
    plain_fast = record(PAPER, PkfConfig(tb_m=32), 10.0)
    records = [plain_fast, record(fused, PkfConfig(tb_m=32), 40.0),
               record(fused, PkfConfig(tb_m=16), 30.0)]
    assert records[1].epilogue == "bias,residual,relu" and plain_fast.epilogue == ""
    assert records[1].key != plain_fast.key
    log = tmp_path / "h100.jsonl"
    # Records from before the field load as the plain convolution's.
    old = json.loads(plain_fast.to_json())
    del old["epilogue"]
    log.write_text(json.dumps(old) + "\n" + "".join(r.to_json() + "\n" for r in records[1:]))
    assert best_config(log, PAPER, "h100")[1]["median_us"] == 10.0
    assert best_config(log, fused, "h100")[0] == PkfConfig(tb_m=16)
    assert best_config(log, dataclasses.replace(PAPER, epilogue=("relu",)), "h100") is None

    # The build takes the epilogue's own best, else the plain convolution's with a note (the
    # records are m=4: asked for, as the build takes only schemes within the accuracy bar
    # unless --m says otherwise).
    def tuned(epilogue: str) -> FamilyConfig:
        args = build_args(["--dtype", "fp16", "--m", "4", "--tuning-log", str(log),
                           "--epilogue", epilogue])
        return choose(args)[1]
    assert tuned("bias,residual,relu") == PkfConfig(tb_m=16)
    assert tuned("relu") == PkfConfig(tb_m=32)
    relu = dataclasses.replace(PAPER, epilogue=("relu",))
    (wl, cfg), rec, instead = best_for_build(log, relu, "h100", 4)
    assert (wl, cfg, rec["median_us"], instead) == (relu, PkfConfig(tb_m=32), 10.0,
                                                    "no epilogue")
    (wl, cfg), _, instead = best_for_build(log, dataclasses.replace(fused, m=2), "h100", 4)
    assert (wl, cfg, instead) == (fused, PkfConfig(tb_m=16), "")
    # without m only schemes within the bar: F(4x4) fp16 records are not picked
    assert best_for_build(log, dataclasses.replace(fused, m=2), "h100", None) is None
    with pytest.raises(WinoError, match="not found"):
        best_for_build(tmp_path / "missing.jsonl", fused, "h100", None)


def test_records_of_an_int8_y_are_their_own_case(tmp_path: Path, capsys, on_h100) -> None:
    # int8 inputs write an f32 y by default; an int8 y is another kernel (and much less DRAM)
    plain = Conv2dWorkload(32, 14, 14, 256, 256, "int8", 2, accum="fp32")
    int8_y = dataclasses.replace(plain, out="int8")
    persistent, split = F23Config(stages=3, persist=True), F23Config(stages=3, c_split=2)
    cand = Candidate(int8_y, persistent)
    assert cand.key[3] == "int8" and Candidate(plain, persistent).key[3] == "fp32"
    assert Candidate.from_config_name(int8_y.shape_dict(), cand.cfg.name(int8_y), "",
                                      "int8") == cand
    assert Entry.of(cand, None).candidate() == cand
    plain_fast = record(plain, persistent, 10.0)
    records = [plain_fast, record(int8_y, persistent, 9.0), record(int8_y, split, 8.0)]
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
    def tuned(out: str) -> tuple[Conv2dWorkload, FamilyConfig]:
        args = build_args(["--dtype", "int8", "--accum", "fp32", "--shape",
                           "32,14,14,256,256", "--tuning-log", str(log), "--out-dtype", out])
        return choose(args)
    assert tuned("int8") == (int8_y, split)
    assert tuned("fp16") == (dataclasses.replace(plain, out="fp16"), persistent)
    assert "using its best config with an fp32 y" in capsys.readouterr().out
    # with an epilogue too: the y's own records first, then the default y's
    relu_fp16 = dataclasses.replace(plain, out="fp16", epilogue=("relu",))
    (wl, cfg), _, instead = best_for_build(log, relu_fp16, "h100", None)
    assert (wl, cfg, instead) == (relu_fp16, persistent, "an fp32 y and no epilogue")
    relu_int8 = dataclasses.replace(int8_y, epilogue=("relu",))
    (wl, cfg), _, instead = best_for_build(log, relu_int8, "h100", None)
    assert (wl, cfg, instead) == (relu_int8, split, "no epilogue")
