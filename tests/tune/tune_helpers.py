"""What the tuner's test modules share: the paper's workload, the H100's limits, a record maker
and the default spaces (each computed once per session: a default space takes seconds)."""

from __future__ import annotations

import hashlib
from collections import Counter
from functools import cache
from pathlib import Path

from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.kernels import FamilyConfig
from wino_tvm.tune.records import Record, candidate_record
from wino_tvm.tune.space import Axes, Candidate, config_space
from wino_tvm.workload import Conv2dWorkload

REPO = Path(__file__).resolve().parents[2]
H100 = KNOWN_DEVICES["h100"]
PAPER = Conv2dWorkload(1, 224, 224, 64, 64, "fp16", 4)  # ntiles 3136, alpha 6
H100_NAME = "NVIDIA H100 80GB HBM3"


@cache
def _default_space(wl: Conv2dWorkload) -> tuple[tuple[Candidate, ...], Counter[str]]:
    space, refused = config_space(wl, H100)
    return tuple(space), refused


def default_space(wl: Conv2dWorkload) -> tuple[list[Candidate], Counter[str]]:
    """config_space(wl, H100) with the default axes (every family), computed once."""
    space, refused = _default_space(wl)
    return list(space), Counter(refused)


def space_of(wl: Conv2dWorkload, axes: Axes) -> list[Candidate]:
    return config_space(wl, H100, axes)[0]


def names_digest(space: list[Candidate]) -> str:
    """sha256 of the sorted candidate names (workload key, config name), one per line: the
    fingerprint of a space, compared with the one the code before the families computed."""
    return hashlib.sha256("\n".join(sorted(c.name for c in space)).encode()).hexdigest()


def record(wl: Conv2dWorkload, cfg: FamilyConfig, us: float, **changes) -> Record:
    values = {"device": H100_NAME, "nvcc": "13.0.88", "driver": "570.1", "status": "ok",
              "median_us": us, "rel_l2_err": 1e-3, **changes}
    return candidate_record(Candidate(wl, cfg), **values)
