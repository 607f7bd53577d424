"""Apply-history-best: the fastest correct logged config for a workload and device. TVM-free."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path

from ..config import KernelConfig
from ..errors import WinoError
from ..workload import Conv2dWorkload, epilogue_text
from .device import device_matches
from .records import Record, read_records


def matching(
    records: list[Record],
    wl: Conv2dWorkload,
    device_name: str,
    m: int | None = None,
    fusion: str | None = None,
) -> list[Record]:
    """Correct, timed records of wl's shape, dtype, accumulator, epilogue and y on device_name whose
    config the code still takes for wl (a rule added after a record was logged drops it); m and
    fusion restrict them when given (wl.m is not used: m=None searches every tile size)."""
    return [
        r
        for r in records
        if r.is_best_candidate
        and r.workload == wl.shape_dict()
        and (r.dtype, r.accum, r.epilogue, r.output)
        == (wl.dtype, wl.accum, epilogue_text(wl.epilogue), wl.out)
        and device_matches(device_name, r.device)
        and m in (None, r.m)
        and fusion in (None, r.fusion)
        and not r.kernel_config().problems(replace(wl, m=r.m))
    ]


def latest(records: list[Record]) -> list[Record]:
    """The last record of each (workload, config, epilogue, y, device), in log order: a
    re-measurement (of newer code, in a later session) supersedes the earlier one, whatever
    either found."""
    last: dict[tuple[str, str, str, str, str], Record] = {}
    for r in records:
        last[(*r.key, r.device)] = r
    return list(last.values())


def best_config(
    log: Path,
    wl: Conv2dWorkload,
    device_name: str,
    m: int | None = None,
    fusion: str | None = None,
) -> tuple[KernelConfig, dict] | None:
    """(config, record as a dict) of the fastest correct latest record (latest()), or None when
    the log has no record for this workload and device. The record's "m" is the tile size to
    build with.

    device_name is the driver's name ('NVIDIA H100 80GB HBM3') or any part of it ('h100').
    """
    if not log.is_file():
        raise WinoError(f"tuning log {log} not found")
    candidates = matching(latest(read_records(log)), wl, device_name, m, fusion)
    if not candidates:
        return None
    best = min(candidates, key=lambda r: r.median_us)
    return best.kernel_config(), asdict(best)
