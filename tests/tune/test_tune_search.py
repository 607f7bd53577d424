"""Which candidates a session measures: all of the space, or a sample stratified over the
kernels' structures, always with the baseline."""

from __future__ import annotations

import dataclasses

from tune_helpers import H100, PAPER, default_space

from wino_tvm.kernels.f23.config import F23Config
from wino_tvm.kernels.lane.config import LaneConfig
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.tune.search import BASELINE, baselines, select, structure
from wino_tvm.tune.space import Axes, Candidate, sm_fill
from wino_tvm.workload import Conv2dWorkload


def test_select_exhaustive_or_stratified() -> None:
    space, _ = default_space(PAPER)
    picked, strategy = select(space[:10], trials=10)
    assert strategy == "exhaustive" and picked == space[:10]
    always = baselines(PAPER, H100)
    assert BASELINE == PkfConfig(fusion="shmem")
    assert [(c.wl.m, c.cfg) for c in always] == [(2, BASELINE), (4, BASELINE)]
    picked, strategy = select(space, trials=20, seed=3, always=always)
    assert strategy == "stratified" and picked[:2] == always
    assert len(picked) == 20 and len(set(picked)) == 20
    assert select(space, trials=20, seed=3, always=always)[0] == picked
    assert select(space, trials=20, seed=4, always=always)[0] != picked


def test_structure_tells_the_families_and_their_builds_apart() -> None:
    wl = Conv2dWorkload(128, 28, 28, 128, 128, "fp16", 2)

    def of(cfg) -> tuple:
        return structure(Candidate(wl, cfg))

    assert of(PkfConfig(fusion="full")) == ("pkf", 2, "full", False, False, False)
    assert of(PkfConfig(tb_k=128, fusion="full", persist=True)) == (
        "pkf", 2, "full", True, False, True)
    assert of(PkfConfig(u_l2=True)) == ("pkf", 2, "none", False, True, False)
    assert of(LaneConfig(tb_k=128)) == ("lane", 2, "full", False, False, True)
    assert of(F23Config(persist=True)) == ("f23", 2, "full", True, False, False)
    # tile sizes and small knobs stay within a structure
    assert of(PkfConfig(tb_m=32, pad=0)) == of(PkfConfig())
    assert of(LaneConfig(groups=4, stages=3)) == of(LaneConfig())


def test_stratified_sample_covers_every_structure() -> None:
    """A budget of one config per structure measures each one once, the small ones included
    (the persistent C = 128 pkf configs are 34 of 5005; the default space has every family)."""
    wl = Conv2dWorkload(128, 28, 28, 128, 128, "fp16", 2)
    space, _ = default_space(wl)
    structures = {structure(c) for c in space}
    persistent = [c for c in space if c.cfg.FAMILY == "pkf" and c.cfg.persist]
    assert len(structures) > 4 and 0 < len(persistent) < len(space) // 10
    assert len(persistent) == 34
    assert {s[0] for s in structures} == {"pkf", "lane", "f23", "f44"}
    for seed in range(3):
        picked, strategy = select(space, trials=len(structures), seed=seed)
        assert strategy == "stratified"
        assert sorted(structure(c) for c in picked) == sorted(structures)
    picked, _ = select(space, trials=2 * len(structures), seed=0)
    assert all(sum(structure(c) == s for c in picked)
               >= min(2, sum(structure(c) == s for c in space)) for s in structures)


def test_baseline_is_measured_even_where_pruned() -> None:
    small = Conv2dWorkload(1, 56, 56, 64, 64, "fp16", 4)  # m=4: 52 blocks < 56 possible
    assert sm_fill(small, BASELINE, H100) is not None
    assert [c.wl.m for c in baselines(small, H100)] == [2, 4]
    tight = dataclasses.replace(H100, smem_per_block=1024)  # but never one that cannot run
    assert baselines(small, tight) == []
    # only where the pkf family (whose default it is) is in the space, for the axes' m
    assert baselines(small, H100, Axes(families=("lane", "f23"))) == []
    assert [c.wl.m for c in baselines(small, H100, Axes(m=(4,)))] == [4]
    int8_fp16 = Conv2dWorkload(1, 56, 56, 64, 64, "int8", 2, accum="fp16")  # lane's alone
    assert baselines(int8_fp16, H100) == []
