"""The tuner's CLI (space, best, the --family/--m/--axis axes) and what the GPU side imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tune_helpers import PAPER, REPO, record

from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.tune.space import Axes, config_space
from wino_tvm.workload import Conv2dWorkload


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wino_tvm.tune", *args], cwd=REPO,
                          capture_output=True, text=True)


def test_gpu_side_modules_do_not_import_tvm() -> None:
    modules = ["wino_tvm.device", "wino_tvm.kernels",
               *(f"wino_tvm.tune.{m}" for m in ("measure", "records", "search", "best",
                                                "manifest", "space", "__main__"))]
    code = (f"import sys\nfor m in {modules}: __import__(m)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tvm', 'tvm_ffi')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_cli_space_and_best(tmp_path: Path) -> None:
    out = cli("space", "--workload", "1,224,224,64,64", "--device", "h100",
              "--axis", "pkf.tb_m=16")
    assert out.returncode == 0 and "N1_H224_W224_C64_K64 fp16/fp32:" in out.stdout
    log = tmp_path / "h100.jsonl"
    log.write_text(record(PAPER, PkfConfig(tb_m=32), 20.0).to_json() + "\n")
    best = cli("best", "--log", str(log), "--workload", "1,224,224,64,64", "--device-name", "h100")
    assert best.returncode == 0 and PkfConfig(tb_m=32).name(PAPER) in best.stdout
    none = cli("best", "--log", str(log), "--workload", "1,56,56,64,64", "--device-name", "h100")
    assert none.returncode == 1 and "no record for this workload and device" in none.stdout
    # int8 on fp16 MMAs takes m=2 only: the space (and build) start from a workload it takes;
    # an int8 y is its own case, labelled so
    int8 = cli("space", "--workload", "32,14,14,256,256", "--dtype", "int8", "--accum", "fp32",
               "--out-dtype", "int8", "--m", "2", "--family", "pkf,f23",
               "--axis", "pkf.fusion=full", "--device", "h100")
    assert int8.returncode == 0, int8.stderr
    assert "N32_H14_W14_C256_K256 int8/fp32 y int8:" in int8.stdout
    kept = int(int8.stdout.split("y int8: ")[1].split()[0])
    assert kept > 0  # the f23 configs: pkf takes no fp32 accumulators for int8
    # and so does best, without --m
    lane = cli("best", "--log", str(log), "--workload", "1,224,224,64,64", "--dtype", "int8",
               "--accum", "fp16", "--out-dtype", "int8", "--device-name", "h100")
    assert lane.returncode == 1 and "int8/fp16 y int8" in lane.stdout, lane.stderr


def test_cli_space_takes_families_and_axes() -> None:
    args = ["--workload", "1,56,56,64,64", "--device", "h200", "--family", "lane",
            "--axis", "lane.wgmma=0,1"]
    out = cli("space", *args, "--list")
    assert out.returncode == 0, out.stderr
    h200 = KNOWN_DEVICES["h200"]
    wl = Conv2dWorkload(1, 56, 56, 64, 64, "fp16", 2)
    space, refused = config_space(wl, h200, Axes.parse("lane", (2, 4), ["lane.wgmma=0,1"]))
    lines = out.stdout.splitlines()
    assert lines[:2] == [
        f"device limits: NVIDIA H200: 132 SMs, {h200.smem_per_block} B shared memory per "
        f"block, {h200.l2_bytes} B L2",
        f"N1_H56_W56_C64_K64 fp16/fp32: {len(space)} configs kept, "
        f"{sum(refused.values())} refused: {dict(refused)}"]
    assert lines[2:] == [f"  {c.cfg.name(c.wl)}" for c in space]
    assert space and all("-lane" in line for line in lines[2:])
    # the axis doubled the lane family's product (wgmma 0 and 1) and kept what it kept without
    plain, plain_refused = config_space(wl, h200, Axes.parse("lane", (2, 4), []))
    assert len(space) + sum(refused.values()) == 2 * (len(plain) + sum(plain_refused.values()))
    assert set(plain) <= set(space)


@pytest.mark.parametrize(("command", "args", "message"), [
    ("space", ["--family", "lane", "--axis", "lane.wgmma=0,2"],
     "error: --axis 'lane.wgmma=0,2': the lane family's wgmma='2': choose one of 0, 1"),
    ("space", ["--axis", "lane.warp=1"],
     "error: --axis 'lane.warp=1': the lane family has no knob 'warp'; its knobs: tb_n, tb_k, "
     "wgmma, tma, exchange_own, stack, groups, k_split, stages, tap_split"),
    ("space", ["--family", "lane,gpu"],
     "error: --family lane,gpu: unknown kernel family 'gpu': choose from pkf, lane, f23, f44"),
    ("space", ["--family", "pkf", "--axis", "lane.wgmma=1"],
     "error: --axis 'lane.wgmma=1': the lane family is not in --family pkf"),
    ("build", ["--axis", "tb_q=16", "--out", "unused"],
     "error: --axis 'tb_q=16': no family of pkf, lane, f23, f44 has a knob 'tb_q'"),
])
def test_cli_refuses_a_bad_axis_with_one_error_line(command: str, args: list[str],
                                                     message: str) -> None:
    out = cli(command, "--workload", "1,56,56,64,64", "--device", "h200", *args)
    assert out.returncode == 2
    assert out.stderr.splitlines() == [message]
    assert out.stdout == ""  # refused before the device line (and before any build)
