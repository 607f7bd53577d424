"""The shipped H100 tuning log: parseable, from real measurements, covering the benchmark."""

from __future__ import annotations

import pytest

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config, latest
from wino_tvm.tune.records import read_records
from wino_tvm.workload import Conv2dWorkload


def test_log_records_are_h100_measurements():
    records = read_records(TUNING_LOG)
    assert records and all("H100" in r.device for r in records)
    ok = [r for r in records if r.status == "ok"]
    assert ok and all(r.median_us > 0 and r.rel_l2_err is not None for r in ok)


@pytest.mark.parametrize("shape", BENCH_WORKLOADS)
@pytest.mark.parametrize("dtype", ["fp16", "int8"])
def test_every_benchmark_workload_has_a_valid_best(shape, dtype):
    wl = Conv2dWorkload(*shape, dtype=dtype)
    cfg, record = best_config(TUNING_LOG, wl, "h100")
    tuned = Conv2dWorkload(*shape, dtype=dtype, m=record["m"])
    assert cfg.problems(tuned, KNOWN_DEVICES["h100"]) == []
    # The best is the fastest correct record of this workload and accumulator (the default:
    # fp32 for fp16; the log also holds fp16-accumulator records), each config counted by its
    # latest record (a config measured again replaces its older time).
    rivals = [r for r in latest(read_records(TUNING_LOG))
              if r.workload == wl.shape_dict() and (r.dtype, r.accum) == (dtype, wl.accum)
              and r.status == "ok" and not r.epilogue]
    assert record["median_us"] == min(r.median_us for r in rivals)
