"""BATCH/manifest.json: what the builder generated, read back by measure. TVM-free."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import WinoError
from ..workload import epilogue_text
from .space import Candidate

MANIFEST_FILE = "manifest.json"
VERSION = 1


@dataclass(frozen=True)
class Entry:
    """One candidate: its folder under the batch, and whether the builder could generate it."""

    name: str
    workload: dict[str, int]
    config: str
    built: bool
    reason: str = ""
    commit: str = ""  # of the checkout that generated it (an earlier session's, if reused)
    epilogue: str = ""  # fused epilogue ops, 'bias,residual,relu' (workload.epilogue_text)
    out: str = ""  # y's type ('' in older manifests: the dtype's default)

    @classmethod
    def of(cls, cand: Candidate, reason: str | None, commit: str = "") -> Entry:
        return cls(cand.name, cand.wl.shape_dict(), cand.cfg.name(cand.wl), reason is None,
                   reason or "", commit, epilogue_text(cand.wl.epilogue), cand.wl.out)

    def candidate(self) -> Candidate:
        return Candidate.from_config_name(self.workload, self.config, self.epilogue, self.out)


@dataclass(frozen=True)
class Manifest:
    """The batch: the entries plus how they were chosen (device limits, spaces, search)."""

    entries: tuple[Entry, ...]
    arch: str
    commit: str
    device: dict = field(default_factory=dict)
    searches: tuple[dict, ...] = ()
    version: int = VERSION

    def write(self, batch: Path) -> Path:
        path = batch / MANIFEST_FILE
        path.write_text(json.dumps(asdict(self), indent=1) + "\n")
        return path

    @classmethod
    def read(cls, batch: Path) -> Manifest:
        path = batch / MANIFEST_FILE
        if not path.is_file():
            raise WinoError(f"{path} not found: make it with `python -m wino_tvm.tune build`")
        data = json.loads(path.read_text())
        if data.get("version") != VERSION:
            raise WinoError(f"{path} has version {data.get('version')}, this tuner reads {VERSION}")
        data["entries"] = tuple(Entry(**e) for e in data["entries"])
        data["searches"] = tuple(data.get("searches", ()))
        return cls(**data)
