"""The compute-bound benchmark's pure parts (bench/compute.py): what it sweeps and how a row
reads."""

from __future__ import annotations

from wino_tvm.bench.compute import SWEEP, WORKLOADS, sweep, table_cells
from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.math.tolerance import ACCURACY_BAR
from wino_tvm.tune.space import Axes
from wino_tvm.workload import Conv2dWorkload

H200 = KNOWN_DEVICES["h200"]


def test_sweep_is_the_f23_space_within_the_bar_and_every_default() -> None:
    base = Conv2dWorkload(1, 256, 256, 256, 256, dtype="fp16")
    pool = sweep(base, H200, Axes.parse("f23", (2, 4), [*SWEEP, "f23.strip=0,8"]),
                 ACCURACY_BAR["fp16"])
    names = [cfg.name(wl) for wl, cfg, _ in pool]
    assert len(names) == len(set(names))
    # m = 4 is beyond the fp16 accuracy bar: never swept
    assert {wl.m for wl, _, _ in pool} == {2}
    swept = [cfg for _, cfg, why in pool if why == "sweep"]
    # whole rows of 128 tiles need more shared memory than the H200 has: strips only
    assert swept and {cfg.strip for cfg in swept} == {8}
    assert {why for *_, why in pool} >= {"f23 default", "lane default"}


def test_a_bound_that_admits_f4x4_sweeps_f44_and_adds_its_default() -> None:
    """--family f44 --bound 3e-3: f44's space at m = 4, every family's default within the bound
    (f44's among them, first in the runtime's order at C = K = 512)."""
    base = Conv2dWorkload(1, 128, 128, 512, 512, dtype="fp16")
    pool = sweep(base, H200, Axes.parse("f44", (2, 4), []), 3e-3)
    swept = [cfg.name(wl) for wl, cfg, why in pool if why == "sweep"]
    assert len(swept) == 13 and all("-m4-f44-" in name for name in swept), swept
    defaults = {why: cfg.name(wl) for wl, cfg, why in pool if why.endswith("default")}
    assert defaults["f44 default"] == "fp16-fp32-m4-f44-bn256-pb-st4"
    assert "f23 default" in defaults


def test_workloads_are_issue_52s() -> None:
    assert len(WORKLOADS) == 14 and all(c >= 128 and k >= 128 for *_, c, k in WORKLOADS)


def test_a_row_names_the_best_and_the_default_or_none() -> None:
    cudnn = {"cudnn_us": 10.0, "cudnn_torch_us": 10.5, "cudnn_engines_us": 10.0}
    row = {"workload": {"N": 1, "H": 8, "W": 8, "C": 128, "K": 128}, **cudnn,
           "best": {"config": "cfg", "us": 8.0, "speedup": 1.25, "rel_l2": 4.2e-4},
           "default": {"config": "cfg", "us": 9.0, "speedup": 10 / 9}}
    assert table_cells(row) == ["1,8,8,128,128", "10.0", "10.5", "10.0", "cfg", "8.0", "1.25x",
                                "4.2e-04", "9.0", "1.11x"]
    none = {"workload": row["workload"], **cudnn}
    assert table_cells(none) == ["1,8,8,128,128", "10.0", "10.5", "10.0", "none correct", "-",
                                 "-", "-", "-", "-"]
