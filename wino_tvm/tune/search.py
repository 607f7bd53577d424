"""Which candidates to measure: all of a pruned space, or a seeded sample spread over its
structural families. TVM-free."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import defaultdict

from ..config import DeviceLimits, KernelConfig
from ..workload import Conv2dWorkload
from .space import DEFAULT_AXES, Axes, Candidate, shared_memory, tile_sizes, wmma_divisibility

# What `python -m wino_tvm.build` builds without knob flags: the reference a session's gain is
# measured against.
BASELINE = KernelConfig(fusion="shmem")


def baselines(
    wl: Conv2dWorkload, device: DeviceLimits, axes: Axes = DEFAULT_AXES
) -> list[Candidate]:
    """BASELINE for each of the axes' m where it can run at all, even where the performance
    rules (SM fill, registers, L2) pruned it: the comparison needs it measured."""
    out = []
    for m in tile_sizes(wl, axes):
        wl_m = dataclasses.replace(wl, m=m)
        if not (wmma_divisibility(wl_m, BASELINE, device) or shared_memory(wl_m, BASELINE, device)):
            out.append(Candidate(wl_m, BASELINE))
    return out


def family(cand: Candidate) -> tuple[int, str, bool, bool, bool, bool, bool]:
    """How a kernel is built: m, fusion, persistent blocks, U in shared memory, one channel
    chunk (tb_k = C), the lane layout, the F(2, 3) kernel. Within a family configs differ in
    tile sizes and small knobs."""
    cfg = cand.cfg
    return (cand.wl.m, cfg.fusion, cfg.persist, cfg.u_smem, cfg.tb_k == cand.wl.c, cfg.lane,
            cfg.f23)


def select(
    space: list[Candidate], trials: int, seed: int = 0, always: list[Candidate] = ()
) -> tuple[list[Candidate], str]:
    """(candidates, strategy): `always` plus the whole space when both fit the trial budget
    ("exhaustive"), else `always` plus a seeded sample up to the budget that takes one random
    config of each family in turn ("stratified"), so that no family goes unmeasured while the
    budget lasts."""
    if trials <= 0:
        raise ValueError(f"trial budget {trials} must be positive")
    always = list(always)
    rest = [c for c in space if c not in always]
    if len(always) + len(rest) <= trials:
        return always + rest, "exhaustive"
    # A uniform sample follows the families' sizes: the persistent C = 128 configs (30 of ~770)
    # went unmeasured until a sweep found them 1.18-1.39x faster (bench/results/h100/
    # tune_one_chunk/).
    rng = random.Random(seed)
    families = defaultdict(list)
    for cand in rest:
        families[family(cand)].append(cand)
    pools = [rng.sample(members, len(members)) for members in families.values()]
    rng.shuffle(pools)
    turns = (c for turn in itertools.zip_longest(*pools) for c in turn if c is not None)
    return always + list(itertools.islice(turns, max(0, trials - len(always)))), "stratified"
