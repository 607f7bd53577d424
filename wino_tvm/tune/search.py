"""Which candidates to measure: all of a pruned space, or a seeded sample spread over its
structures. TVM-free."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import defaultdict

from ..device import DeviceLimits
from ..kernels.pkf import FAMILY as PKF
from ..workload import Conv2dWorkload
from .space import DEFAULT_AXES, Axes, Candidate, legality, shared_memory

# The paper's PKF-Shmem-16 (the pkf family's default): the reference a session's gain is
# measured against.
BASELINE = PKF.Config(fusion="shmem")


def baselines(
    wl: Conv2dWorkload, device: DeviceLimits, axes: Axes = DEFAULT_AXES
) -> list[Candidate]:
    """BASELINE for each of the axes' m where it can run at all, even where the performance
    rules (SM fill, registers, L2) pruned it: the comparison needs it measured."""
    if PKF.name not in axes.families:
        return []
    out = []
    for m in (m for m in axes.m if m in PKF.tile_sizes(wl)):
        wl_m = dataclasses.replace(wl, m=m)
        if not (legality(wl_m, BASELINE, device) or shared_memory(wl_m, BASELINE, device)):
            out.append(Candidate(wl_m, BASELINE))
    return out


def structure(cand: Candidate) -> tuple:
    """How a kernel is built: its family, m, fusion, persistent blocks, U in shared memory,
    one channel chunk (tb_k = C). Within one structure configs differ in tile sizes and small
    knobs."""
    cfg = cand.cfg
    return (cfg.FAMILY, cand.wl.m, cfg.fusion, getattr(cfg, "persist", False),
            getattr(cfg, "u_l2", False), getattr(cfg, "tb_k", 0) == cand.wl.c)


def select(
    space: list[Candidate], trials: int, seed: int = 0, always: list[Candidate] = ()
) -> tuple[list[Candidate], str]:
    """(candidates, strategy): `always` plus the whole space when both fit the trial budget
    ("exhaustive"), else `always` plus a seeded sample up to the budget that takes one random
    config of each structure in turn ("stratified"), so that none goes unmeasured while the
    budget lasts."""
    if trials <= 0:
        raise ValueError(f"trial budget {trials} must be positive")
    always = list(always)
    rest = [c for c in space if c not in always]
    if len(always) + len(rest) <= trials:
        return always + rest, "exhaustive"
    # A uniform sample follows the structures' sizes: the persistent C = 128 configs (30 of
    # ~770) went unmeasured until a sweep found them 1.18-1.39x faster (experiments:
    # tune_one_chunk).
    rng = random.Random(seed)
    families = defaultdict(list)
    for cand in rest:
        families[structure(cand)].append(cand)
    pools = [rng.sample(members, len(members)) for members in families.values()]
    rng.shuffle(pools)
    turns = (c for turn in itertools.zip_longest(*pools) for c in turn if c is not None)
    return always + list(itertools.islice(turns, max(0, trials - len(always)))), "stratified"
