"""The GPU-side runner: finding nvcc and the GPU, running the program, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wino_tvm import runner
from wino_tvm.errors import NoGpu, NvccNotFound, WinoError

REPO = Path(__file__).resolve().parents[1]


def make_script(path: Path, body: str) -> Path:
    """An executable Python script standing in for a binary (nvidia-smi, wino_bench)."""
    path.write_text(f"#!{sys.executable}\nimport json, sys, time\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def empty_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding one empty directory, where test doubles can be put."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def test_find_nvcc_missing(empty_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(runner, "DEFAULT_CUDA_ROOTS", ())
    with pytest.raises(NvccNotFound, match="install the CUDA toolkit.*CUDA_HOME"):
        runner.find_nvcc()


def test_find_nvcc_from_cuda_home(
    empty_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cuda" / "bin").mkdir(parents=True)
    nvcc = make_script(tmp_path / "cuda" / "bin" / "nvcc", "")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "cuda"))
    assert runner.find_nvcc() == str(nvcc)


def test_detect_arch_without_nvidia_smi(empty_path: Path) -> None:
    with pytest.raises(NoGpu, match="must run on a machine with an NVIDIA GPU"):
        runner.detect_arch()


def test_detect_arch_reads_first_gpu(empty_path: Path) -> None:
    make_script(empty_path / "nvidia-smi", 'print("9.0"); print("8.0")')
    assert runner.detect_arch() == "sm_90"


@pytest.mark.parametrize(
    "body",
    [
        "",
        'print("NVIDIA-SMI has failed because it could not communicate with the driver"); '
        "sys.exit(9)",
    ],
)
def test_detect_arch_no_gpu_listed(empty_path: Path, body: str) -> None:
    make_script(empty_path / "nvidia-smi", body)
    with pytest.raises(NoGpu, match="lists no GPU"):
        runner.detect_arch()


def test_compile_program_input_errors(tmp_path: Path) -> None:
    with pytest.raises(WinoError, match="program.cu not found"):
        runner.compile_program(tmp_path, "sm_90")
    (tmp_path / "program.cu").write_text("int main() { return 0; }\n")
    with pytest.raises(WinoError, match="bad arch 'compute_90'"):
        runner.compile_program(tmp_path, "compute_90")


def test_arch_flags() -> None:
    assert runner.arch_flags("sm_80") == ["-arch=sm_80"]
    assert runner.arch_flags("sm_90a") == ["-gencode=arch=compute_90a,code=sm_90a"]


def test_target_arch_follows_the_programs_needs(tmp_path: Path) -> None:
    plain, wgmma = tmp_path / "plain.cu", tmp_path / "wgmma.cu"
    plain.write_text("__global__ void k() {}\n")
    wgmma.write_text("// wino-tvm: needs sm_90a\n__global__ void k() {}\n")
    assert runner.target_arch(plain, "sm_80") == "sm_80"
    assert runner.target_arch(wgmma, "sm_90") == runner.target_arch(wgmma, "sm_90a") == "sm_90a"
    with pytest.raises(WinoError, match="runs on sm_90 GPUs .*not sm_80; rebuild it without wg"):
        runner.target_arch(wgmma, "sm_80")


@pytest.mark.nvcc
def test_compile_program_reports_nvcc_errors(tmp_path: Path) -> None:
    try:
        runner.find_nvcc()
    except NvccNotFound:
        pytest.skip("nvcc not found")
    (tmp_path / "program.cu").write_text("int main() { return undeclared_name; }\n")
    with pytest.raises(WinoError, match="(?s)nvcc failed .* for sm_80:.*undeclared_name"):
        runner.compile_program(tmp_path, "sm_80")


FAKE_BENCH = """
print("check 1/1 ok", file=sys.stderr, flush=True)
print("some stdout chatter")
print(json.dumps({"correct": True, "args": sys.argv[1:]}))
"""


def test_run_program_parses_last_line(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    binary = make_script(tmp_path / "bench", FAKE_BENCH)
    assert runner.run_program(binary, ["--iters", "5"], timeout_s=30) == {
        "correct": True,
        "args": ["--iters", "5"],
    }
    assert "check 1/1 ok" in capfd.readouterr().err


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('print("x.cu:1: CUDA error boom", file=sys.stderr); sys.exit(3)', "(?s)status 3:.*boom"),
        ('print("progress", file=sys.stderr); print("not json")', "(?s)no JSON record.*progress"),
        ('print("[1, 2]")', "no JSON record"),
        ("", "no JSON record"),
        ("time.sleep(30)", "did not finish within 0.5 s"),
    ],
)
def test_run_program_errors(tmp_path: Path, body: str, message: str) -> None:
    binary = make_script(tmp_path / "bench", body)
    with pytest.raises(WinoError, match=message):
        runner.run_program(binary, [], timeout_s=0.5 if "sleep" in body else 30)


def test_run_program_missing_binary(tmp_path: Path) -> None:
    with pytest.raises(WinoError, match="cannot run"):
        runner.run_program(tmp_path / "nope", [], timeout_s=5)


def test_cli_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    binary = make_script(tmp_path / "bench", FAKE_BENCH)
    built = []
    monkeypatch.setattr(
        runner, "compile_program", lambda d, arch: built.append((d, arch)) or binary
    )
    record_file = tmp_path / "out" / "records.jsonl"
    argv = [str(tmp_path), "--arch", "sm_90", "--no-time", "--checks", "3", "--record",
            str(record_file)]
    assert runner.main(argv) == 0
    assert runner.main(argv) == 0
    assert built == [(tmp_path, "sm_90")] * 2
    printed = capsys.readouterr().out.strip().splitlines()
    record = json.loads(printed[-1])
    assert record["args"] == [
        "--checks", "3", "--seed", "1", "--iters", "100", "--warmup", "20", "--no-time"
    ]
    assert [json.loads(line) for line in record_file.read_text().splitlines()] == [record] * 2


def test_cli_error_is_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "wino_tvm.runner", "/nonexistent/artifact", "--arch", "sm_90"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert "program.cu not found" in proc.stderr


def test_modules_do_not_import_tvm() -> None:
    code = (
        "import sys, wino_tvm.harness, wino_tvm.runner; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tvm', 'tvm_ffi')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
