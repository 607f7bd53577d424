"""bench.ab: SIDE-NAME artifacts compiled and run in interleaved rounds (nvcc and the harness
faked), medians over the rounds, and the comparison of a with every other side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wino_tvm import batch, runner
from wino_tvm.bench import ab
from wino_tvm.errors import WinoError
from wino_tvm.harness import PROGRAM_FILE

# µs per artifact and round: b is faster than a, c slower, and c's x is wrong once.
TIMES = {"a-x": [10.0, 12.0, 11.0], "b-x": [8.0, 9.0, 10.0], "c-x": [20.0, 22.0, 21.0],
         "a-y": [5.0, 5.0, 5.0], "b-y": [4.0, 4.0, 4.0]}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name in TIMES:
        (tmp_path / "arts" / name).mkdir(parents=True)
        (tmp_path / "arts" / name / PROGRAM_FILE).write_text("// program")
    (tmp_path / "arts" / "notes").mkdir()  # not an artifact: no program, no side
    return tmp_path / "arts"


@pytest.fixture
def fake_gpu(monkeypatch) -> list[str]:
    """compile_program and run_program faked; returns the order in which artifacts ran."""
    ran: list[str] = []

    def run(binary: Path, args: list[str], timeout_s: float) -> dict:
        name = binary.parent.name
        ran.append(name)
        round_ = sum(1 for n in ran if n == name) - 1
        correct = not (name == "c-x" and round_ == 1)
        return {"median_us": TIMES[name][round_], "correct": correct, "args": args}

    monkeypatch.setattr(batch, "compile_program", lambda d, arch: d / runner.BINARY_FILE)
    monkeypatch.setattr(batch, "run_program", run)
    return ran


def test_rounds_interleave_and_every_run_is_recorded(root, fake_gpu, tmp_path):
    records = ab.run_rounds(root, tmp_path / "out", 3, 50, 5, 2, "sm_90")
    assert fake_gpu == sorted(TIMES) * 3  # a whole round before the next
    lines = [json.loads(line) for line in (tmp_path / "out" / ab.AB_FILE).read_text().splitlines()]
    assert lines == records and len(lines) == 15
    assert lines[0]["args"] == ["--checks", "1", "--iters", "50", "--warmup", "5"]
    assert [r["round"] for r in lines[:5]] == [1] * 5


def test_medians_over_rounds_and_the_table(root, fake_gpu, tmp_path):
    merged = {r["artifact"]: r for r in ab.per_artifact(
        ab.run_rounds(root, tmp_path / "out", 3, 50, 5, 2, "sm_90"))}
    assert merged["a-x"]["median_us"] == 11.0 and merged["b-x"]["median_us"] == 9.0
    assert merged["c-x"]["correct"] is False and merged["b-x"]["correct"] is True
    lines = ab.table(list(merged.values()))
    assert lines[0] == ("x: a 11.0 µs, b 9.0 µs (b/a speed 1.222x), c 21.0 µs (c/a speed "
                        "0.524x); WRONG: ['c']")
    assert lines[1] == "y: a 5.0 µs, b 4.0 µs (b/a speed 1.250x)"
    assert lines[2].startswith("b/a over 2 pairs: 1.222x-1.250x, geometric mean 1.236x")
    assert lines[-1] == "all 5 artifacts correct: False"


def test_main_runs_a_folder_and_exits_1_on_a_wrong_artifact(root, fake_gpu, tmp_path, capsys):
    assert ab.main([str(root), "--out", str(tmp_path / "out"), "--arch", "sm_90"]) == 1
    assert "c/a over 1 pairs" in capsys.readouterr().out


def test_main_reads_a_bench_results_file(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(json.dumps(r) for r in (
        {"fusion": "cudnn", "median_us": 3.0},  # a baseline: no artifact
        {"artifact": "a-x", "median_us": 10.0, "correct": True},
        {"artifact": "b-x", "median_us": 5.0, "correct": True})) + "\n")
    assert ab.main([str(results)]) == 0
    assert "b 5.0 µs (b/a speed 2.000x)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["{root}"], "running artifacts needs --out DIR"),
    (["{tmp}/missing.jsonl"], "holds no artifact records"),
    (["{tmp}/empty", "--out", "{tmp}/o"], "no SIDE-NAME artifact folders"),
])
def test_bad_input_is_one_error_line(argv, message, root, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    argv = [a.format(root=root, tmp=tmp_path) for a in argv]
    assert ab.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]


def test_a_build_failure_is_recorded_not_raised(root, tmp_path, monkeypatch):
    def compile_program(d: Path, arch: str) -> Path:
        if d.name == "b-y":
            raise WinoError("nvcc failed")
        return d / runner.BINARY_FILE

    monkeypatch.setattr(batch, "compile_program", compile_program)
    monkeypatch.setattr(batch, "run_program", lambda b, a, t: {"median_us": 1.0,
                                                                "correct": True})
    records = ab.run_rounds(root, tmp_path / "out", 1, 10, 1, 1, "sm_90")
    failed = [r for r in records if r["artifact"] == "b-y"]
    assert failed == [{"artifact": "b-y", "round": 1, "status": "error", "error": "nvcc failed",
                       "correct": False}]
