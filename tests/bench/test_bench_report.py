"""Benchmark records -> report (bytes model, ratios, tables, plot); the bench CLI's CPU side and
the cuDNN helper's glue."""

from __future__ import annotations

import ctypes
import gzip
import json
import sys
from pathlib import Path

import pytest
from test_library import SMALL, FakeFunction, write_direct_artifact

from wino_tvm import commit
from wino_tvm.bench import artifacts as bench
from wino_tvm.bench import cudnn, report
from wino_tvm.errors import WinoError

WL = {"N": 1, "H": 224, "W": 224, "C": 64, "K": 64}
RESNET = {"N": 32, "H": 56, "W": 56, "C": 64, "K": 64}
X_BYTES = 224 * 224 * 64 * 2  # |x| = |y| of WL in fp16
CFG = "fp16-fp32-m4-tbm16-tbn16-tbk16-frag16x16x16-{}-vec16-pad16"


def rec(fusion: str, us: float | None, dtype: str = "fp16", m: int | None = None,
        correct: bool = True, wl: dict = WL, **extra) -> dict:
    config = CFG.format(fusion) if m else f"{fusion} baseline"
    return {"device": "NVIDIA H100 80GB HBM3", "workload": wl, "dtype": dtype, "m": m,
            "fusion": fusion, "config": config, "median_us": us, "rel_l2_err": 1e-3,
            "max_abs_err": 1e-2, "correct": correct, "status": "ok" if correct else "wrong",
            "commit": "abc123", **extra}


def records() -> list[dict]:
    return [
        rec("cudnn", 20.0),
        rec("cudnn_winograd", 100.0),
        rec("cudnn_winograd_fused", None, correct=False, status="unsupported",
            error="WINOGRAD: CUDNN_STATUS_NOT_SUPPORTED (no kernel | for sm_90)"),
        rec("cudnn_fp32", 50.0, dtype="fp32"),
        rec("cudnn_int8", 30.0, dtype="int8"),
        rec("none", 40.0, m=4),
        rec("shmem", 10.0, m=4),
        rec("syncfree", 12.0, m=4, host_bound=True),
        rec("llc", None, m=4, correct=False, rel_l2_err=0.5),
        {**rec("none", 15.0, dtype="int8", m=2), "config": "int8-int32-m2-none"},
        rec("cudnn", 100.0, wl=RESNET),
        rec("shmem", 50.0, m=4, wl=RESNET),
    ]


def find(rs: list[dict], fusion: str, wl: dict = WL, dtype: str = "fp16") -> dict:
    return next(r for r in rs if r["fusion"] == fusion and r["workload"] == wl
                and r["dtype"] == dtype)


# ---- bytes model and derived numbers --------------------------------------------------------
def test_bytes_model_matches_design_brief_table() -> None:
    # The brief's table assumes M in fp16 (Vm = 2): 11, 6.5 and 2 times |x| for m = 4.
    fp16_m = {"elem_bytes": {"M": 2}}
    assert report.dram_bytes(rec("none", 1.0, m=4, **fp16_m)) == 11 * X_BYTES
    assert report.dram_bytes(rec("syncfree", 1.0, m=4, **fp16_m)) == 11 * X_BYTES
    assert report.dram_bytes(rec("shmem", 1.0, m=4, **fp16_m)) == 6.5 * X_BYTES
    assert report.dram_bytes(rec("llc", 1.0, m=4, **fp16_m)) == 6.5 * X_BYTES
    assert report.dram_bytes(rec("full", 1.0, m=4)) == 2 * X_BYTES


def test_bytes_model_defaults_and_baselines() -> None:
    tiles = 56 * 56
    v16, m32 = 36 * tiles * 64 * 2, 36 * tiles * 64 * 4  # fp16 V, fp32 M (the defaults)
    assert report.dram_bytes(rec("none", 1.0, m=4)) == 2 * X_BYTES + 2 * v16 + 2 * m32
    assert report.dram_bytes(rec("shmem", 1.0, m=4)) == 2 * X_BYTES + 2 * m32
    # int8: x and V one byte, y float, M int32; m = 2: 16/4 tile expansion, 112^2 tiles.
    x8, tiles2 = X_BYTES // 2, 112 * 112
    expected = x8 + 4 * x8 + 2 * (16 * tiles2 * 64) + 2 * (16 * tiles2 * 64 * 4)
    assert report.dram_bytes(rec("none", 1.0, dtype="int8", m=2)) == expected
    # Baselines: x + y + w.
    assert report.dram_bytes(rec("cudnn", 1.0)) == 2 * X_BYTES + 9 * 64 * 64 * 2
    assert report.dram_bytes(rec("cudnn_int8", 1.0, dtype="int8",
                                 elem_bytes={"y": 1})) == 2 * x8 + 9 * 64 * 64
    # A fusion the model does not know gives no number rather than a wrong one.
    assert report.dram_bytes(rec("mystery", 1.0, m=4)) is None


def test_derive_tflops_and_gbps() -> None:
    d = report.derive(rec("shmem", 10.0, m=4))
    assert d["tflops"] == pytest.approx(2 * 224 * 224 * 64 * 64 * 9 / 10e-6 / 1e12)
    assert d["gbps"] == pytest.approx(d["dram_bytes"] / 10e-6 / 1e9)
    untimed = report.derive(rec("llc", None, m=4, correct=False))
    assert untimed["tflops"] is None and untimed["gbps"] is None


# ---- ratios and tables ----------------------------------------------------------------------
def test_speedups_against_cudnn_best_and_winograd() -> None:
    rs = [report.derive(r) for r in records()]
    group = report.by_workload(rs)["N1_H224_W224_C64_K64"]
    assert report.speedups(find(rs, "shmem"), group) == pytest.approx((2.0, 10.0))
    assert report.speedups(find(rs, "none"), group) == pytest.approx((0.5, 2.5))
    # int8 rows compare with the fastest int8 cuDNN result; Winograd is cuDNN's fp16 one.
    assert report.speedups(find(rs, "none", dtype="int8"), group) == pytest.approx((2.0, 100 / 15))
    assert report.speedups(find(rs, "llc"), group) == (None, None)
    resnet = report.by_workload(rs)["N32_H56_W56_C64_K64"]
    assert report.speedups(find(rs, "shmem", RESNET), resnet) == pytest.approx((2.0, None))
    # A wrong cuDNN result is never the reference.
    wrong_best = [rec("cudnn", 1.0, correct=False), rec("cudnn", 5.0), rec("shmem", 10.0, m=4)]
    assert report.speedups(wrong_best[2], wrong_best)[0] == pytest.approx(0.5)
    # Nor is an fp16 one less accurate than the bar (fp16 accumulation at large C),
    # however fast; int8 has no such bar.
    loose = [rec("cudnn_engines", 2.0, rel_l2_err=1.7e-3), rec("cudnn", 5.0),
             rec("cudnn_int8_engines", 1.0, dtype="int8", rel_l2_err=1.3e-2),
             rec("shmem", 10.0, m=4), rec("none", 4.0, m=4, dtype="int8")]
    assert report.speedups(loose[3], loose)[0] == pytest.approx(0.5)
    assert report.speedups(loose[4], loose)[0] == pytest.approx(0.25)


def test_markdown_tables() -> None:
    md = report.markdown([report.derive(r) for r in records()])
    first, second = md.index("## N1_H224_W224_C64_K64"), md.index("## N32_H56_W56_C64_K64")
    assert first < second  # smaller problem first
    table = md[first:second]
    rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert rows[0].startswith(f"| {CFG.format('shmem')} | fp16 | 4 | 10.0 | 369.9 |")
    assert rows[0].endswith("| yes | 2.00x | 10.00x |")
    assert any(r.startswith("| cudnn: cudnn baseline | fp16 | - | 20.0 |")
               and "| 1.00x | 5.00x |" in r for r in rows)
    assert rows[1].startswith(f"| {CFG.format('syncfree')} | fp16 | 4 | 12.0 † |")
    assert "†: host-bound in every timing attempt" in md
    llc = next(r for r in rows if "-llc-" in r)
    assert "**WRONG**" in llc and "| 5.00e-01 |" in llc and llc.endswith("| - | - |")
    fused = next(r for r in rows if r.startswith("| cudnn_winograd_fused: "))
    assert "unsupported: WINOGRAD: CUDNN_STATUS_NOT_SUPPORTED (no kernel / for sm_90)" in fused
    # Usable rows first, fastest first; then the ones without a time.
    assert rows.index(llc) > max(i for i, r in enumerate(rows) if "| yes |" in r)
    assert "NVIDIA H100 80GB HBM3" in md and "abc123" in md


@pytest.mark.parametrize(("fields", "label"), [
    ({}, "cfg"),
    ({"epilogue": "bias,relu"}, "cfg +bias,relu"),
    ({"dtype": "int8", "out": "fp32"}, "cfg"),  # int8's default output
    ({"dtype": "int8", "out": "int8", "epilogue": "relu"}, "cfg +relu ->int8"),
    ({"dtype": "int8"}, "cfg"),  # records from before the output dtype existed
])
def test_series_label_names_epilogue_and_output(fields: dict, label: str) -> None:
    assert report.series_label({"fusion": "full", "config": "cfg", "dtype": "fp16",
                                **fields}) == label


def test_plot_series_keeps_each_familys_fastest_per_workload() -> None:
    """One series per (dtype, family), the best of its configs per workload; baselines are the
    reference (1), not series."""
    rs = [*records(), rec("shmem", 20.0, m=4)]
    series = report.plot_series([report.derive(r) for r in rs])
    # "int8-int32-m2-none" names no family config: "other"
    assert set(series) == {("fp16", "pkf"), ("int8", "other")}
    # shmem at 20 us is the fastest pkf config at both workloads (the one before: 2.0x)
    assert series[("fp16", "pkf")] == {0: pytest.approx(2.0), 1: pytest.approx(2.0)}
    assert report.family({"config": CFG.format("shmem")}) == "pkf"
    assert report.family({"config": "cudnn baseline"}) == "other"


def test_write_report_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in records()) + "\n")
    assert report.main([str(results), "--out", str(tmp_path / "out")]) == 0
    assert "wrote" in capsys.readouterr().out
    md = (tmp_path / "out" / report.REPORT_FILE).read_text()
    assert md == report.markdown(report.load_records([results]))
    png = (tmp_path / "out" / report.PLOT_FILE).read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000


def test_gzipped_records_load_as_plain_ones(tmp_path: Path) -> None:
    text = "".join(json.dumps(r) + "\n" for r in records())
    plain, packed = tmp_path / "results.jsonl", tmp_path / "results.jsonl.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    assert report.load_records([packed]) == report.load_records([plain])
    assert len(report.load_records([packed])) == len(records())


def test_plot_without_usable_records(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = report.plot([rec("llc", None, m=4, correct=False)], tmp_path / "p.png")
    assert path.read_bytes().startswith(b"\x89PNG")


def test_report_cli_rejects_bad_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"fusion": "none"}\n')
    assert report.main([str(bad), "--out", str(tmp_path)]) == 2
    assert "bad.jsonl:1: not a benchmark record" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert report.main([str(empty), "--out", str(tmp_path)]) == 2
    assert "no records" in capsys.readouterr().err


# ---- bench: discovery, workloads, builds ----------------------------------------------------
def test_discover_groups_artifacts_by_shape(tmp_path: Path) -> None:
    a = write_direct_artifact(tmp_path / "a")
    b = write_direct_artifact(tmp_path / "sub" / "b", "int8")
    c = write_direct_artifact(tmp_path / "c", shape=(1, 224, 224, 64, 64))
    half_built = write_direct_artifact(tmp_path / "d")
    (half_built / "reconstructed.cu").unlink()
    assert bench.discover(tmp_path) == {SMALL: [a, b], (1, 224, 224, 64, 64): [c]}
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "harness_spec.json").write_text("{}")
    (tmp_path / "e" / "reconstructed.cu").write_text("")
    with pytest.raises(WinoError, match="is not a harness spec"):
        bench.discover(tmp_path)


def test_parse_workloads() -> None:
    standard = bench.parse_workloads(["standard"])
    assert len(standard) == 13 and len(set(standard)) == 13
    assert standard[:5] == [(1, 224, 224, 64, 64), (1, 448, 448, 64, 64), (1, 640, 640, 64, 64),
                            (1, 960, 960, 64, 64), (8, 224, 224, 64, 64)]
    assert (32, 7, 7, 512, 512) in standard and (128, 56, 56, 64, 64) in standard
    assert bench.parse_workloads(["2,8,8,16,32", "standard", "2,8,8,16,32"])[0] == SMALL
    assert len(bench.parse_workloads(["2,8,8,16,32", "standard"])) == 14
    for bad in ("1,224,224,64", "1,224,224,64,x", "0,1,1,1,1"):
        with pytest.raises(WinoError, match="five positive integers"):
            bench.parse_workloads([bad])


def without_cudnn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUDNN_HOME", raising=False)
    monkeypatch.setitem(sys.modules, "nvidia.cudnn", None)  # import now fails


def test_cudnn_not_found_says_what_to_do(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    without_cudnn(monkeypatch)
    expected = r"cuDNN not found.*nvidia-cudnn-cu13.*CUDNN_HOME"
    with pytest.raises(cudnn.CudnnNotFound, match=expected):
        cudnn.find_cudnn()
    with pytest.raises(cudnn.CudnnNotFound):  # before any nvcc run
        cudnn.compile_helper(tmp_path, "sm_90")


def test_cudnn_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    without_cudnn(monkeypatch)
    (tmp_path / "include").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "include" / "cudnn.h").write_text("")
    monkeypatch.setenv("CUDNN_HOME", str(tmp_path))
    with pytest.raises(cudnn.CudnnNotFound, match=str(tmp_path)):
        cudnn.find_cudnn()  # no library yet
    (tmp_path / "lib" / cudnn.CUDNN_SONAME).write_text("")
    assert cudnn.find_cudnn() == (tmp_path / "include", tmp_path / "lib")


@pytest.mark.nvcc
def test_build_all_without_cudnn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    without_cudnn(monkeypatch)
    good = write_direct_artifact(tmp_path / "good")
    broken = write_direct_artifact(tmp_path / "broken")
    (broken / "library.cu").write_text("not CUDA\n")
    libs, helper = bench.build_all([good, broken], "sm_90", 2, tmp_path / "helper")
    assert libs[good] == good / "libwino.so" and libs[good].is_file()
    assert isinstance(libs[broken], str) and "nvcc failed" in libs[broken]
    assert isinstance(helper, str) and "cuDNN not found" in helper


def test_commit_id(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert commit.commit_id() != "unknown"  # this checkout
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # no git
    assert commit.commit_id() == "unknown"
    monkeypatch.setenv("WINO_TVM_COMMIT", "abc1234")  # the tree's commit, named by the caller
    assert commit.commit_id() == "abc1234"


def test_bench_cli_errors_on_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main([str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "no artifacts" in capsys.readouterr().err
    write_direct_artifact(tmp_path / "a")
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))  # no nvidia-smi
    assert bench.main([str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "NVIDIA GPU" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main([str(tmp_path), "--out", str(tmp_path / "out"), "--iters", "0"])


# ---- cuDNN helper glue ----------------------------------------------------------------------
class FakeCreate(FakeFunction):
    """cc_create: stores a plan handle through its last (byref) argument, as the C side does."""

    def __call__(self, *args: object) -> object:
        if self.result == 0:
            args[-1]._obj.value = 0x5000
        return super().__call__(*args)


class FakeHelper:
    def __init__(self, create: int = 0, run: int = 0, error: bytes = b"") -> None:
        self.cc_version = FakeFunction(90800)
        self.cc_status_string = FakeFunction(b"CUDNN_STATUS_NOT_SUPPORTED")
        self.cc_last_error = FakeFunction(error)
        self.cc_create = FakeCreate(create)
        self.cc_workspace_bytes = FakeFunction(1024)
        self.cc_run = FakeFunction(run)
        self.cc_destroy = FakeFunction(None)
        self.cc_engines_create = FakeCreate(create)
        self.cc_engines_count = FakeFunction(2)
        self.cc_engines_name = FakeNames()
        self.cc_engines_workspace_bytes = FakeFunction(4096)
        self.cc_engines_run = FakeFunction(run)
        self.cc_engines_destroy = FakeFunction(None)


class FakeNames(FakeFunction):
    """cc_engines_name: a name per plan index."""

    def __init__(self) -> None:
        super().__init__(None)

    def __call__(self, *args: object) -> object:
        super().__call__(*args)
        return f"eng{args[1]}_k2=1".encode()


SPEC = cudnn.ConvSpec("fp16", "NCHW", "fp16", "fp32", "WINOGRAD_NONFUSED")
ENGINE_SPEC = cudnn.ConvSpec("int8", "NHWC", "int8", "int32", cudnn.ENGINES, "any")


def assert_runs_then_closes_once(owned: object, args: tuple, run: object, passed: tuple,
                                 destroy: object) -> None:
    """owned.run(*args) calls `run` with the helper's handle (0x5000) and then `passed`; close()
    twice destroys the handle once (cudnn._Owned)."""
    owned.run(*args)
    assert run.calls[0][0].value == 0x5000
    assert run.calls[0][1:] == passed
    owned.close()
    owned.close()
    assert len(destroy.calls) == 1


def test_cudnn_helper_glue() -> None:
    fake = FakeHelper()
    helper = cudnn.CudnnHelper("libfake.so", cdll=fake)
    assert helper.version() == 90800
    assert fake.cc_run.argtypes[5] is ctypes.c_float
    plan = helper.plan(1, 224, 224, 64, 64, SPEC)
    assert fake.cc_create.calls[0][:11] == (1, 224, 224, 64, 64, b"fp16", b"NCHW", b"fp16",
                                            b"fp32", b"WINOGRAD_NONFUSED", b"tensor_op")
    assert plan.workspace_bytes == 1024
    assert_runs_then_closes_once(plan, (1, 2, 3, 4, 5, 0.5), fake.cc_run, (1, 2, 3, 4, 0.5, 5),
                                 fake.cc_destroy)
    assert SPEC.describe() == "WINOGRAD_NONFUSED fp16->fp16 NCHW compute=fp32 math=tensor_op"


def test_cudnn_engine_set_glue() -> None:
    fake = FakeHelper()
    helper = cudnn.CudnnHelper("libfake.so", cdll=fake)
    assert fake.cc_engines_create.argtypes[8] is ctypes.c_float  # alpha
    engines = helper.engines(2, 7, 7, 512, 512, ENGINE_SPEC, alpha=0.25)
    assert fake.cc_engines_create.calls[0][:9] == (2, 7, 7, 512, 512, b"int8", b"int8", b"int32",
                                                   0.25)
    assert engines.names == ["eng0_k2=1", "eng1_k2=1"]
    assert engines.workspace_bytes == [4096, 4096]
    assert_runs_then_closes_once(engines, (1, 2, 3, 4, 5, 6), fake.cc_engines_run,
                                 (1, 2, 3, 4, 5, 6), fake.cc_engines_destroy)
    with pytest.raises(WinoError, match="NHWC only"):
        helper.engines(1, 8, 8, 16, 16, SPEC)


def test_cudnn_engine_refusal() -> None:
    message = b"no engine configuration of heuristics mode A or the fallback list builds"
    helper = cudnn.CudnnHelper("libfake.so", cdll=FakeHelper(create=3000, error=message))
    with pytest.raises(cudnn.CudnnRefused, match="engine configurations.*no engine") as info:
        helper.engines(1, 8, 8, 16, 16, ENGINE_SPEC)
    assert info.value.status == 3000
    failing = cudnn.CudnnHelper("libfake.so", cdll=FakeHelper(run=5000))
    with pytest.raises(cudnn.CudnnRefused, match="cudnnBackendExecute .eng0_k2=1"):
        failing.engines(1, 8, 8, 16, 16, ENGINE_SPEC).run(0, 1, 2, 3, 4, 5)


def test_cudnn_refusal_carries_cudnn_text() -> None:
    message = b"cudnnGetConvolutionForwardWorkspaceSize(...): CUDNN_STATUS_NOT_SUPPORTED"
    helper = cudnn.CudnnHelper("libfake.so", cdll=FakeHelper(create=3000, error=message))
    with pytest.raises(cudnn.CudnnRefused, match="WINOGRAD_NONFUSED.*NOT_SUPPORTED") as info:
        helper.plan(1, 8, 8, 16, 16, SPEC)
    assert info.value.unsupported and info.value.status == 3000
    failing = cudnn.CudnnHelper("libfake.so", cdll=FakeHelper(run=5000))
    with pytest.raises(cudnn.CudnnRefused) as info:
        failing.plan(1, 8, 8, 16, 16, SPEC).run(1, 2, 3, 4, 5)
    # Without a detailed message, the status name is used; a failure to run is no refusal.
    assert "CUDNN_STATUS_NOT_SUPPORTED" in str(info.value)


# ---- on a GPU -------------------------------------------------------------------------------
@pytest.mark.gpu
def test_bench_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    write_direct_artifact(tmp_path / "art" / "fp16")
    write_direct_artifact(tmp_path / "art" / "int8", "int8")
    out = tmp_path / "out"
    assert bench.main([str(tmp_path / "art"), "--out", str(out), "--iters", "5",
                       "--warmup", "1"]) == 0
    rs = [json.loads(line) for line in (out / bench.RESULTS_FILE).read_text().splitlines()]
    ours = [r for r in rs if not report.is_baseline(r)]
    assert sorted(r["config"] for r in ours) == ["direct-fp16", "direct-int8"]
    assert all(r["correct"] and r["median_us"] > 0 and r["tflops"] > 0 for r in ours)
    assert all(1 <= r["timing_attempts"] <= 3 for r in rs if r["median_us"])
    torch_cudnn = next(r for r in rs if r["fusion"] == "cudnn")
    assert torch_cudnn["correct"] and torch_cudnn["rel_l2_err"] < 1e-3
    assert {r["fusion"] for r in rs} >= {"cudnn_winograd", "cudnn_int8", "cudnn_fp32"}
    # cuDNN's engine configurations: the fastest correct one, each screened one listed.
    for fusion in ("cudnn_engines", "cudnn_int8_engines", "cudnn_int8_i8out_engines"):
        correct = [r for r in rs if r["fusion"] == fusion and r["correct"]]
        assert correct, [{k: r.get(k) for k in ("config", "status", "rel_l2_err", "reason",
                                                 "tolerance")} for r in rs
                         if r["fusion"] == fusion]
        best = min(correct, key=lambda r: r["median_us"])
        timed = {k: v for k, v in best["engine_screen_us"].items() if isinstance(v, float)}
        assert best["config"].startswith("cuDNN engine eng") and timed
        assert best["config"].split()[2].rstrip(":") in timed
    assert (out / report.REPORT_FILE).is_file() and (out / report.PLOT_FILE).is_file()
