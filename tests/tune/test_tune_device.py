"""The device limits the tuner prunes with (wino_tvm.device, formerly wino_tvm.tune.device):
the known table, name matching, the GPUs visible here, nvcc's version."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tune_helpers import H100, H100_NAME

from wino_tvm import device as tune_device
from wino_tvm.device import (
    KNOWN_DEVICES,
    DeviceLimits,
    Gpu,
    device_matches,
    known_device,
    resolve_limits,
    visible_gpus,
)
from wino_tvm.errors import WinoError


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
