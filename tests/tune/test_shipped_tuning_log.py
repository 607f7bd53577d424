"""The shipped H100 tuning log: parseable, from real measurements, covering the benchmark, and
read by the family configs into the same picks as before them."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest

from wino_tvm.bench.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.kernels import parse_config
from wino_tvm.tune.best import best_config, latest
from wino_tvm.tune.records import Record, read_records
from wino_tvm.workload import Conv2dWorkload

EPI = "bias,residual,relu"
# (dtype, accumulator, epilogue, y) of every case the log may hold for a workload: fp16 with
# fp32 and fp16 accumulators, int8 with int32 (pkf), fp16 (lane) and fp32 (f23) ones, each
# without and with the whole epilogue, int8 also with an int8 y.
CASES = [(dtype, accum, epilogue, y)
         for dtype, accums in (("fp16", ("fp32", "fp16")), ("int8", ("int32", "fp16", "fp32")))
         for accum in accums for epilogue in ("", EPI)
         for y in ("", *(("int8",) if dtype == "int8" else ()))]


@cache
def _records() -> tuple[Record, ...]:
    return tuple(read_records(TUNING_LOG))


def test_log_records_are_h100_measurements():
    records = _records()
    assert records and all("H100" in r.device for r in records)
    ok = [r for r in records if r.status == "ok"]
    assert ok and all(r.median_us > 0 and r.rel_l2_err is not None for r in ok)


def test_every_record_parses():
    """Every config name of the log (any status) is a config of one family, whose name is the
    same string, and every line of the file is a record."""
    lines = [line for line in TUNING_LOG.read_text().splitlines() if line.strip()]
    assert len(lines) == len(_records())
    for r in _records():
        meta, cfg = parse_config(r.config)
        wl = Conv2dWorkload(**{k.lower(): v for k, v in r.workload.items()}, dtype=meta["dtype"],
                            m=meta["m"], accum=meta["accum"])
        assert (meta["dtype"], meta["accum"], meta["m"]) == (r.dtype, r.accum, r.m)
        assert cfg.name(wl) == r.config
        assert cfg.fusion == r.fusion
        assert r.kernel_config() == cfg


@pytest.mark.parametrize("shape", BENCH_WORKLOADS)
@pytest.mark.parametrize("dtype", ["fp16", "int8"])
def test_every_benchmark_workload_has_a_valid_best(shape, dtype):
    wl = Conv2dWorkload(*shape, dtype=dtype)
    cfg, record = best_config(list(_records()), wl, "h100")
    tuned = Conv2dWorkload(*shape, dtype=dtype, m=record["m"])
    assert cfg.problems(tuned, KNOWN_DEVICES["h100"]) == []
    # The best is the fastest correct record of this workload and accumulator (the default:
    # fp32 for fp16; the log also holds fp16-accumulator records), each config counted by its
    # latest record (a config measured again replaces its older time).
    rivals = [r for r in latest(list(_records()))
              if r.workload == wl.shape_dict() and (r.dtype, r.accum) == (dtype, wl.accum)
              and r.status == "ok" and not r.epilogue]
    assert record["median_us"] == min(r.median_us for r in rivals)


@pytest.mark.parametrize("shape", BENCH_WORKLOADS)
def test_the_best_of_each_case_is_the_old_pick(shape):
    """best_config(log, wl, 'h100') of every case picks the config the code before the family
    configs picked (commit 7bb888f, computed once; names without their '<dtype>-<accum>-'
    prefix); None where the log has no record of the case."""
    records = list(_records())
    expected = BEST[shape]
    assert set(expected) <= set(CASES)
    for dtype, accum, epilogue, y in CASES:
        wl = Conv2dWorkload(*shape, dtype=dtype, m=2, accum=accum,
                            epilogue=tuple(epilogue.split(",")) if epilogue else (), out=y)
        found = best_config(records, wl, "h100")
        name = None if found is None else found[1]["config"]
        old = expected.get((dtype, accum, epilogue, y))
        assert name == (old and f"{dtype}-{accum}-{old}"), (dtype, accum, epilogue, y)
        if found is not None:
            tuned = dataclasses.replace(wl, m=found[1]["m"])
            assert found[0].problems(tuned, KNOWN_DEVICES["h100"]) == []


def test_the_old_picks_cover_every_benchmark_workload():
    assert set(BEST) == set(BENCH_WORKLOADS) and len(CASES) * len(BENCH_WORKLOADS) == 208
    assert sum(len(picks) for picks in BEST.values()) == 95


# The picks of commit 7bb888f (wino_tvm.tune.best.best_config over tuning_logs/h100.jsonl),
# per benchmark workload and case; a case not listed had no record (95 of 208 cases have one).
BEST = {
    (1, 224, 224, 64, 64): {
        ("fp16", "fp32", "", ""):
            "m2-tbm16-tbn32-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-ts2",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4",
        ("int8", "fp16", "", "int8"):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4",
    },
    (1, 448, 448, 64, 64): {
        ("fp16", "fp32", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("int8", "int32", "", ""):
            "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-oc2-mr2-lb4",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        ("int8", "fp16", "", "int8"):
            "m2-tbm16-tbn64-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
    },
    (1, 640, 640, 64, 64): {
        ("fp16", "fp32", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-mr2-lb4",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        ("int8", "fp16", "", "int8"):
            "m2-tbm16-tbn64-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
    },
    (1, 960, 960, 64, 64): {
        ("fp16", "fp32", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-mr2-lb4",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        ("int8", "fp16", "", "int8"):
            "m2-tbm16-tbn64-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
    },
    (8, 224, 224, 64, 64): {
        ("fp16", "fp32", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("int8", "int32", "", ""):
            "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-oc2-mr2-lb4",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        ("int8", "fp16", "", "int8"):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
    },
    (32, 56, 56, 64, 64): {
        ("fp16", "fp32", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        ("fp16", "fp32", EPI, ""): "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-st3",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ks2",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-ts2",
        ("int8", "int32", "", ""):
            "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-oc2-mr2-lb4",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-stack-g4-st3-ts2",
        ("int8", "fp16", "", "int8"):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-ts2",
    },
    (32, 28, 28, 128, 128): {
        ("fp16", "fp32", "", ""): "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-st4",
        ("fp16", "fp32", EPI, ""): "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-st3",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-g4-ts2",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn32-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-xown-g6-ts2",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk128-frag16x16x16-full-vec16-pad16-ul2",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-xown-g4-ts2",
        ("int8", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-rp-st4",
        ("int8", "fp32", "", "int8"):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-st3",
    },
    (32, 14, 14, 256, 256): {
        ("fp16", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4",
        ("fp16", "fp16", "", ""): "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        ("fp16", "fp16", EPI, ""): "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-oc2",
        ("int8", "fp16", "", ""): "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        ("int8", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st3",
        ("int8", "fp32", "", "int8"):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4",
    },
    (32, 7, 7, 512, 512): {
        ("fp16", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-rp-st4-cs2",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-rp-st4-cs2",
        ("fp16", "fp16", "", ""): "m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16",
        ("fp16", "fp16", EPI, ""): "m2-tbm32-tbn32-tbk32-frag16x16x16-full-vec16-pad16",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2",
        ("int8", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-rp-st4-cs2",
        ("int8", "fp32", "", "int8"):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-f23-rp-st3-cs2",
    },
    (128, 56, 56, 64, 64): {
        ("fp16", "fp32", "", ""):
            "m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-xown-g4-ts2",
        ("fp16", "fp32", EPI, ""): "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-st3",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-ts2",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-ts2",
        ("int8", "int32", "", ""):
            "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2-oc2-mr2-lb4",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-ts2",
        ("int8", "fp16", "", "int8"):
            "m2-tbm16-tbn64-tbk32-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-ts2",
    },
    (128, 28, 28, 128, 128): {
        ("fp16", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-cr-st4",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-cr-st4",
        ("fp16", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-xown-g4-st3-ts2",
        ("fp16", "fp16", EPI, ""):
            "m2-tbm16-tbn32-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-xown-g6-ts2",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk128-frag16x16x16-full-vec16-pad16-ul2",
        ("int8", "fp16", "", ""):
            "m2-tbm16-tbn32-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g6-ts2",
        ("int8", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-cr-st4",
        ("int8", "fp32", "", "int8"):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-cr-rp-st4",
    },
    (128, 14, 14, 256, 256): {
        ("fp16", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-cr-rp-st4",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-cr-rp-st4",
        ("fp16", "fp16", "", ""): "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        ("fp16", "fp16", EPI, ""): "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2",
        ("int8", "fp16", "", ""): "m2-tbm16-tbn16-tbk16-frag16x8x16-full-vec16-pad16-pb-lane-g8",
        ("int8", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-cr-rp-st4",
        ("int8", "fp32", "", "int8"):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-cr-rp-st4",
    },
    (128, 7, 7, 512, 512): {
        ("fp16", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4",
        ("fp16", "fp32", EPI, ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4",
        ("fp16", "fp16", "", ""): "m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16",
        ("fp16", "fp16", EPI, ""): "m2-tbm32-tbn32-tbk32-frag16x16x16-full-vec16-pad16",
        ("int8", "int32", "", ""): "m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2",
        ("int8", "fp32", "", ""):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-rp-st4",
        ("int8", "fp32", "", "int8"):
            "m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-rp-st4",
    },
}
