"""The build CLI (python -m wino_tvm.build): which workload and config the arguments choose
(choose(), without generating), its notes and its one-line errors, --list-knobs, and the README's
two commands in the Makefile. No GPU: visible_gpus() is [] here, so the device is --arch's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import wino_tvm.build as build
from wino_tvm.bench.suites import BENCH_WORKLOADS
from wino_tvm.build import choose, main, parse_args
from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.errors import NvccNotFound, WinoError
from wino_tvm.kernels import FAMILIES, family, parse_config
from wino_tvm.kernels.lane.config import LaneConfig
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.workload import Conv2dWorkload

ROOT = Path(__file__).resolve().parents[1]
TUNING_LOG = ROOT / "tuning_logs" / "h100.jsonl"
H200 = KNOWN_DEVICES["h200"]
F23_NAME = "fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4"
LANE_WG_NAME = ("fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-"
                "stack-g4-ks2")


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """The device is --arch's (sm_90: the H200's table), whatever this machine has."""
    monkeypatch.setattr(build, "visible_gpus", lambda: [])


def chosen(*argv: str) -> tuple[Conv2dWorkload, object]:
    return choose(parse_args(list(argv)))


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """main's one `error:` line for argv (exit code 2, no traceback)."""
    assert main([*argv, "--no-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


# --- the main job and its defaults --------------------------------------------------------


def test_main_job_is_pkf_shmem(capsys: pytest.CaptureFixture[str]) -> None:
    """make demo's `--dtype fp16 --fusion shmem`: the paper's PKF-Shmem-16 on the pkf family,
    at m=2 with fp32 accumulators (within the accuracy bar: no note)."""
    wl, cfg = chosen("--dtype", "fp16", "--fusion", "shmem")
    assert cfg.FAMILY == "pkf" and family(cfg.FAMILY).name == "pkf"
    assert cfg == PkfConfig(fusion="shmem") and cfg.fusion == "shmem"
    assert wl == Conv2dWorkload(1, 224, 224, 64, 64, dtype="fp16", m=2, accum="fp32")
    assert cfg.name(wl) == "fp16-fp32-m2-tbm16-tbn16-tbk16-frag16x16x16-shmem-vec16-pad16"
    assert "note:" not in capsys.readouterr().out
    # with no kernel arguments at all: the same
    assert chosen("--dtype", "fp16") == (wl, cfg)


@pytest.mark.parametrize("dtype, accum", [("fp16", "fp32"), ("int8", "int32")])
def test_m_defaults_to_2_and_4_notes_the_accuracy_bar(dtype: str, accum: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    wl, _ = chosen("--dtype", dtype, "--fusion", "shmem")
    assert (wl.m, wl.accum) == (2, accum)
    assert "note:" not in capsys.readouterr().out
    wl, cfg = chosen("--dtype", dtype, "--fusion", "shmem", "--m", "4")
    assert wl.m == 4 and cfg == PkfConfig(fusion="shmem")
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    assert len(notes) == 1
    assert re.fullmatch(rf"note: {dtype} with {accum} accumulators at m=4: relative L2 error "
                        rf"about \S+, beyond the {dtype} accuracy bar \S+ "
                        r"\(wino_tvm/math/tolerance.py\); the defaults \(m=2, the dtype's first "
                        r"accumulator\) are within it", notes[0]), notes


# --- --config -----------------------------------------------------------------------------


def test_config_builds_that_config(capsys: pytest.CaptureFixture[str]) -> None:
    wl, cfg = chosen("--config", F23_NAME, "--shape", "32,14,14,256,256")
    assert (wl, cfg) == (Conv2dWorkload(32, 14, 14, 256, 256, dtype="fp16", m=2, accum="fp32"),
                         parse_config(F23_NAME)[1])
    assert cfg.name(wl) == F23_NAME
    # the precision is the name's: an int8 name needs no --dtype
    name = "int8-int32-m4-tbm32-tbn32-tbk32-frag32x8x16-syncfree-vec16-pad0"
    wl, cfg = chosen("--config", name)
    assert (wl.dtype, wl.accum, wl.m) == ("int8", "int32", 4) and cfg.name(wl) == name
    # --m and --accum that agree with the name are fine
    assert chosen("--config", F23_NAME, "--shape", "32,14,14,256,256", "--m", "2", "--accum",
                  "fp32")[1] == parse_config(F23_NAME)[1]


def test_config_writes_the_artifact_of_that_config(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """main with --config: the artifact's config.json names the config and its family (a
    template family: no TVM; nvcc left out)."""
    import wino_tvm.runner

    def no_nvcc(*_args: object, **_kwargs: object) -> Path:
        raise NvccNotFound("nvcc not found (test)")

    monkeypatch.setattr(wino_tvm.runner, "compile_program", no_nvcc)
    out = tmp_path / "f23"
    assert main(["--config", F23_NAME, "--shape", "32,14,14,256,256", "--out", str(out)]) == 0
    record = json.loads((out / "config.json").read_text())
    assert (record["config"], record["family"]) == (F23_NAME, "f23")
    assert record["workload"] == {"N": 32, "H": 14, "W": 14, "C": 256, "K": 256}
    assert (out / "program.cu").is_file()
    assert "compiles on any machine with nvcc" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--config", F23_NAME, "--m", "4"], "--m 4 contradicts --config's 2: drop --m"),
    (["--config", F23_NAME, "--accum", "fp16"],
     "--accum fp16 contradicts --config's fp32: drop --accum"),
    (["--config", F23_NAME, "--family", "f23"],
     "--family/--set/--fusion and --config each choose the kernel: give one"),
    (["--config", F23_NAME, "--set", "stages=3"],
     "--family/--set/--fusion and --config each choose the kernel: give one"),
    (["--config", F23_NAME, "--tuning-log", str(TUNING_LOG)],
     "--config and --tuning-log each choose the kernel: give one"),
    (["--config", "fp16-fp32-m2-tbm16"], "'fp16-fp32-m2-tbm16' is not a wino-tvm config name"),
    # a wgmma config on sm_80
    (["--config", LANE_WG_NAME, "--shape", "1,224,224,64,64", "--arch", "sm_80"],
     f"{LANE_WG_NAME} uses wgmma or TMA, which run on sm_90 GPUs (H100, H200), not sm_80: "
     "build with --arch sm_90"),
])
def test_config_refusals(argv: list[str], message: str,
                         capsys: pytest.CaptureFixture[str]) -> None:
    shape = [] if "--shape" in argv else ["--shape", "32,14,14,256,256"]
    assert message in refused([*argv, *shape], capsys)


# --- --family and --set -------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FAMILIES))
def test_family_without_set_is_the_family_default(name: str) -> None:
    shape = "32,14,14,256,256"
    wl, cfg = chosen("--family", name, "--shape", shape)
    # f44 takes m = 4 only
    assert cfg.FAMILY == name and wl.m == (4 if name == "f44" else 2) and wl.accum == "fp32"
    assert cfg == family(name).default(wl, H200)
    assert cfg.problems(wl, H200) == []


def test_family_lane_with_set_changes_its_default() -> None:
    wl, default = chosen("--family", "lane", "--shape", "1,56,56,64,64", "--accum", "fp16")
    assert isinstance(default, LaneConfig)
    assert default == family("lane").default(wl, H200)
    # each --set changes its knob of the default and keeps the others
    _, cfg = chosen("--family", "lane", "--shape", "1,56,56,64,64", "--accum", "fp16",
                    "--set", "tb_n=16")
    assert default.tb_n != 16 and cfg == default.with_(tb_n=16)
    stages = 2 if default.stages != 2 else 3
    _, cfg = chosen("--family", "lane", "--shape", "1,56,56,64,64", "--accum", "fp16",
                    "--set", "k_split=1", "--set", f"stages={stages}")
    assert cfg == default.with_(k_split=1, stages=stages)
    wl, cfg = chosen("--family", "lane", "--shape", "1,56,56,64,64", "--accum", "fp16",
                     "--set", "tb_n=16", "--set", "tb_k=16", "--set", "wgmma=0", "--set", "tma=0",
                     "--set", "stack=0", "--set", "exchange_own=0", "--set", "groups=2",
                     "--set", "k_split=1", "--set", "stages=4", "--set", "tap_split=1")
    assert cfg == LaneConfig(tb_n=16, tb_k=16, groups=2, stages=4)
    assert cfg.name(wl) == ("fp16-fp16-m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-"
                            "lane-g2-st4")


def test_set_on_pkf_starts_from_the_knob_defaults() -> None:
    _, cfg = chosen("--set", "fusion=full", "--set", "tb_m=32", "--set", "frag=32x8x16")
    assert cfg == PkfConfig(tb_m=32, frag=(32, 8, 16), fusion="full")
    assert chosen("--fusion", "llc")[1] == PkfConfig(fusion="llc")
    assert chosen("--family", "pkf", "--fusion", "full")[1] == PkfConfig(fusion="full")


@pytest.mark.parametrize("argv, message", [
    (["--family", "lane", "--fusion", "full"],
     "--fusion is a knob of the pkf family, not lane: drop it or use --family pkf"),
    (["--family", "f23", "--fusion", "shmem"],
     "--fusion is a knob of the pkf family, not f23: drop it or use --family pkf"),
    (["--family", "lane", "--set", "tb_n=48"], "tb_n='48': choose one of 16, 32, 64"),
    (["--family", "lane", "--set", "fusion=full"],
     "--set 'fusion=full': expected KNOB=VALUE with KNOB one of the lane family's tb_n, tb_k, "
     "wgmma, tma, exchange_own, stack, groups, k_split, stages, tap_split"),
    (["--family", "lane", "--set", "tb_n"], "--set 'tb_n': expected KNOB=VALUE"),
    (["--fusion", "fused"], "fusion='fused': choose one of none, syncfree, shmem, llc, full"),
    (["--tuning-log", str(TUNING_LOG), "--family", "lane"],
     "--family/--set/--fusion and --tuning-log each choose the kernel: give one"),
])
def test_family_refusals(argv: list[str], message: str,
                         capsys: pytest.CaptureFixture[str]) -> None:
    assert message in refused([*argv, "--shape", "1,56,56,64,64"], capsys)


@pytest.mark.parametrize("name", [None, *FAMILIES])
def test_list_knobs_prints_every_knob(name: str | None,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-knobs", *(["--family", name] if name else [])]) == 0
    lines = capsys.readouterr().out.splitlines()
    fam = family(name or "pkf")
    assert lines[0] == f"{fam.name}: {fam.source}"
    assert len(lines) == 1 + len(fam.Config.KNOBS)
    for line, knob in zip(lines[1:], fam.Config.KNOBS.values(), strict=True):
        values = ",".join(knob.format(v) for v in knob.domain)
        assert line == (f"  {knob.name}={{{values}}} (default {knob.format(knob.default)}): "
                        f"{knob.help}")


# --- --tuning-log -------------------------------------------------------------------------

# The configs `python -m wino_tvm.build --tuning-log tuning_logs/h100.jsonl --shape S --dtype D
# --accum A` picked at commit 7bb888f (build._config, no GPU: the sm_90 device), run once on its
# checkout and written down here: the restructure must pick the same. Per workload, in the order
# of PICK_PRECISIONS, the name after its "<dtype>-<accum>-" (None: the log had no record and the
# default config was refused, an error then too).
PICK_PRECISIONS = (("fp16", "fp32"), ("fp16", "fp16"), ("int8", "fp16"), ("int8", "fp32"))
PICKS_7BB888F = {
    (1, 224, 224, 64, 64): (
        "m2-tbm16-tbn32-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3",
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4",
        None,
    ),
    (1, 448, 448, 64, 64): (
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        None,
    ),
    (1, 640, 640, 64, 64): (
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        None,
    ),
    (1, 960, 960, 64, 64): (
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        None,
    ),
    (8, 224, 224, 64, 64): (
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        None,
    ),
    (32, 56, 56, 64, 64): (
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        None,
    ),
    (32, 28, 28, 128, 128): (
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-st4",
        "m2-tbm16-tbn32-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-g4-ts2",
        "m2-tbm16-tbn32-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-xown-g4-ts2",
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-rp-st4",
    ),
    (32, 14, 14, 256, 256): (
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4",
        "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st3",
    ),
    (32, 7, 7, 512, 512): (
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-rp-st4-cs2",
        "m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16",
        None,
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-rp-st4-cs2",
    ),
    (128, 56, 56, 64, 64): (
        "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-ts2",
        "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-ts2",
        None,
    ),
    (128, 28, 28, 128, 128): (
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-cr-st4",
        "m2-tbm16-tbn32-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-xown-g4-st3-ts2",
        "m2-tbm16-tbn32-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g6-ts2",
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-cr-st4",
    ),
    (128, 14, 14, 256, 256): (
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-cr-rp-st4",
        "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-cr-rp-st4",
    ),
    (128, 7, 7, 512, 512): (
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4",
        "m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16",
        None,
        "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-rp-st4",
    ),
}


def test_picks_cover_the_benchmark() -> None:
    assert list(PICKS_7BB888F) == list(BENCH_WORKLOADS)


@pytest.mark.parametrize("shape", BENCH_WORKLOADS)
@pytest.mark.parametrize("dtype, accum", PICK_PRECISIONS)
def test_tuning_log_picks_what_it_picked_before(shape: tuple[int, ...], dtype: str, accum: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    rest = PICKS_7BB888F[shape][PICK_PRECISIONS.index((dtype, accum))]
    argv = ["--tuning-log", str(TUNING_LOG), "--shape", ",".join(map(str, shape)),
            "--dtype", dtype, "--accum", accum]
    if rest is None:
        with pytest.raises(WinoError):
            chosen(*argv)
        return
    wl, cfg = chosen(*argv)
    assert cfg.name(wl) == f"{dtype}-{accum}-{rest}"
    assert (wl.n, wl.h, wl.w, wl.c, wl.k) == shape and (wl.dtype, wl.accum) == (dtype, accum)
    assert f"tuning log: {dtype}-{accum}-{rest} at " in capsys.readouterr().out


# --- the README's commands ----------------------------------------------------------------


def test_readme_commands_are_make_targets() -> None:
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("##", 1)[0]
    for target in ("demo", "test"):
        assert re.search(rf"^make {target}\b", quick_start, re.M), target
        assert re.search(rf"^{target}:", makefile, re.M), target
        assert re.search(rf"^\.PHONY:.*\b{target}\b", makefile, re.M), target
    # make demo runs the main job the README names; make test every test that needs no GPU
    demo = re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "-m wino_tvm.build --dtype fp16 --fusion shmem" in demo
    assert "python -m wino_tvm.build --dtype fp16 --fusion shmem" in quick_start
    test = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert '-m pytest -m "not gpu"' in test
