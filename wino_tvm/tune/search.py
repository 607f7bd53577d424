"""Which candidates to measure: all of a pruned space, or a seeded random sample. TVM-free."""

from __future__ import annotations

import dataclasses
import random

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


def select(
    space: list[Candidate], trials: int, seed: int = 0, always: list[Candidate] = ()
) -> tuple[list[Candidate], str]:
    """(candidates, strategy): `always` plus the whole space when both fit the trial budget
    ("exhaustive"), else `always` plus a seeded random sample of the space up to the budget."""
    if trials <= 0:
        raise ValueError(f"trial budget {trials} must be positive")
    always = list(always)
    rest = [c for c in space if c not in always]
    if len(always) + len(rest) <= trials:
        return always + rest, "exhaustive"
    sample = random.Random(seed).sample(rest, max(0, trials - len(always)))
    return always + sample, "random"
