"""Measuring a batch: outcomes, resume, failures, several GPUs; and the builder that makes
the batch (TVM, nvcc)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from tune_helpers import H100, H100_NAME, PAPER, default_space

from wino_tvm.device import Gpu
from wino_tvm.errors import WinoError
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.tune.manifest import Entry, Manifest
from wino_tvm.tune.measure import RunResult, Settings, measure_batch, outcome, run_once
from wino_tvm.tune.records import Record, read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

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


def _six_candidates() -> list[Candidate]:
    """The first pkf candidates of the paper's space and one of the lane family (the manifest
    and the records carry each family's config names)."""
    space, _ = default_space(PAPER)
    lane = next(c for c in space if c.cfg.FAMILY == "lane")
    return [*space[:5], lane]


def test_measure_records_every_candidate_and_resumes(tmp_path: Path) -> None:
    cands = _six_candidates()
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
    new = _measure(batch, log, grown)
    assert {r.config for r in new} == {names[c.name] for c in cands[4:]}
    assert sorted(grown.ran) == sorted(c.name for c in cands[4:])
    lane = next(r for r in new if r.config == names[cands[5].name])
    assert (lane.fusion, lane.kernel_config()) == ("full", cands[5].cfg)
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
    batch = _batch(tmp_path, _six_candidates())
    gpus = [Gpu("0", H100_NAME, "570.1"), Gpu("3", H100_NAME, "570.1")]
    records = measure_batch(batch, tmp_path / "log.jsonl", gpus, SETTINGS,
                            FakeGpu().compile, report_gpu, echo=lambda _: None)
    assert len(records) == 6 and {r.device for r in records} <= {"GPU 0", "GPU 3"}


def test_manifest_round_trip_and_version(tmp_path: Path) -> None:
    cands = _six_candidates()
    batch = _batch(tmp_path, cands, failed={cands[0].name: "TVMError: no"})
    manifest = Manifest.read(batch)
    assert [e.candidate() for e in manifest.entries] == cands
    assert [e.built for e in manifest.entries] == [False] + [True] * 5
    (batch / "manifest.json").write_text('{"version": 0, "entries": []}')
    with pytest.raises(WinoError, match="has version 0, this tuner reads 1"):
        Manifest.read(batch)
    with pytest.raises(WinoError, match="not found: make it with"):
        Manifest.read(tmp_path / "elsewhere")


# ---- builder: real TVM + reconstructor, compiled by nvcc ------------------------------------


@pytest.mark.nvcc
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_builder_candidates_compile_with_nvcc(tmp_path: Path) -> None:
    from wino_tvm.tune.builder import build_batch  # imports TVM and the reconstructor

    wl = Conv2dWorkload(1, 8, 8, 16, 32, "fp16", 2)
    cands = [Candidate(wl, PkfConfig(fusion="shmem")),
             Candidate(dataclasses.replace(wl, dtype="int8", accum="int32"),
                       PkfConfig(tb_m=32, frag=(32, 8, 16), pad=0, fusion="llc"))]
    entries = build_batch(cands, tmp_path, "sm_90", jobs=1, log=lambda _: None)
    assert [e.reason for e in entries] == ["", ""] and all(e.built and e.commit for e in entries)
    for entry in entries:
        folder = tmp_path / entry.name
        subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-diag-suppress=177", "-c",
                        "-o", str(folder / "program.o"), str(folder / "program.cu")],
                       check=True, capture_output=True, text=True)
        assert (folder / "program.o").stat().st_size > 0
