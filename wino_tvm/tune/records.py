"""Tuning records: one JSON object per line per measurement (format: tuning_logs/README.md).

TVM-free.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path

from ..errors import WinoError
from ..kernels import FamilyConfig, parse_config
from ..workload import epilogue_text, resolve_output
from .space import Candidate

# build_error: TVM or the reconstructor failed on the builder (seen by measure in the manifest).
STATUSES = ("ok", "wrong", "compile_error", "run_error", "timeout", "build_error")


@dataclass(frozen=True)
class Record:
    """One measurement (or failure) of one candidate on one device."""

    workload_key: str
    workload: dict[str, int]
    dtype: str
    accum: str
    m: int
    fusion: str
    config: str
    device: str
    nvcc: str
    driver: str
    status: str
    reason: str = ""
    median_us: float | None = None
    tflops: float | None = None
    rel_l2_err: float | None = None
    max_abs_err: float | None = None
    timestamp: str = ""
    commit: str = "unknown"
    epilogue: str = ""  # fused epilogue ops of the measured kernel ('' none; older records)
    out: str = ""  # y's type ('' in older records: the dtype's default, fp16 or f32)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise WinoError(f"record status {self.status!r} is not one of {STATUSES}")
        if not self.timestamp:
            object.__setattr__(self, "timestamp", now())

    @property
    def output(self) -> str:
        """y's type, the dtype's default where the record does not say."""
        return resolve_output(self.dtype, self.out)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What resume compares (Candidate.key): workload key, config name (it encodes dtype,
        accum, m), epilogue and y's type."""
        return self.workload_key, self.config, self.epilogue, self.output

    @property
    def is_best_candidate(self) -> bool:
        """Correct and timed: may be picked as the best config."""
        return (
            self.status == "ok" and self.median_us is not None and math.isfinite(self.median_us)
        )

    def kernel_config(self) -> FamilyConfig:
        return parse_config(self.config)[1]

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, line: str) -> Record:
        data = json.loads(line)
        if not isinstance(data, dict):
            raise WinoError("a record line must be a JSON object")
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def candidate_record(cand: Candidate, **values) -> Record:
    """A record of cand; values fill the measurement fields."""
    wl, cfg = cand.wl, cand.cfg
    return Record(
        workload_key=wl.key, workload=wl.shape_dict(), dtype=wl.dtype, accum=wl.accum,
        m=wl.m, fusion=cfg.fusion, config=cfg.name(wl), epilogue=epilogue_text(wl.epilogue),
        out=wl.out, **values,
    )


def read_records(path: Path) -> list[Record]:
    """Every record of a log (none when it does not exist yet); a line that does not parse (say a
    session killed mid-write) is skipped with a warning rather than ending the session."""
    if not path.exists():
        return []
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(Record.from_json(line))
        except (ValueError, TypeError, WinoError) as exc:
            print(f"warning: {path}:{number}: skipped, not a record ({exc})", file=sys.stderr)
    return records


def append_record(path: Path, record: Record) -> None:
    """Append one line; the caller serialises writers."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(record.to_json() + "\n")
