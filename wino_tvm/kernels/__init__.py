"""The kernel families behind one registry: which family runs a workload, with which config,
and the config names they parse (TVM-free; generating a TVM family's kernels imports TVM)."""

from __future__ import annotations

from ..errors import WinoError
from ..workload import Conv2dWorkload
from .base import FamilyConfig, Generated, KernelFamily
from .f23 import FAMILY as F23
from .f44 import FAMILY as F44
from .lane import FAMILY as LANE
from .pkf import FAMILY as PKF

FAMILIES: dict[str, KernelFamily] = {f.name: f for f in (PKF, LANE, F23, F44)}


def family(name: str) -> KernelFamily:
    if name not in FAMILIES:
        raise WinoError(f"unknown kernel family {name!r}: choose one of {', '.join(FAMILIES)}")
    return FAMILIES[name]


def family_of(cfg: FamilyConfig) -> KernelFamily:
    return FAMILIES[cfg.FAMILY]


def parse_config(name: str) -> tuple[dict, FamilyConfig]:
    """Inverse of cfg.name(wl): ({'dtype', 'accum', 'm'}, config), whichever family's it is."""
    parts = name.split("-")
    if len(parts) > 3 and parts[2][:1] == "m" and parts[2][1:].isdigit():
        for fam in FAMILIES.values():
            cfg = fam.Config.from_tokens(parts[3:])
            if cfg is not None:
                return {"dtype": parts[0], "accum": parts[1], "m": int(parts[2][1:])}, cfg
    raise WinoError(f"{name!r} is not a wino-tvm config name")


def generate(wl: Conv2dWorkload, cfg: FamilyConfig, arch: str = "sm_90", log=print,
             **options) -> Generated:
    """cfg's family's kernels for wl (validated first)."""
    cfg.validate(wl)
    return family_of(cfg).generate(wl, cfg, arch, log, **options)


__all__ = ["FAMILIES", "FamilyConfig", "Generated", "KernelFamily", "family", "family_of",
           "generate", "parse_config"]
