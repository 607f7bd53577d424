"""Apply-history-best: the fastest correct logged config for a workload and device. TVM-free."""

from __future__ import annotations

import dataclasses
from dataclasses import asdict
from pathlib import Path

from ..device import device_matches
from ..errors import WinoError
from ..kernels import FamilyConfig
from ..math.tolerance import within_bar
from ..workload import Conv2dWorkload, epilogue_text, resolve_output
from .records import Record, read_records

# m a build takes from a log unless asked for another: F(2x2) and F(2, 3), within the bar.
DEFAULT_M = 2


def matching(
    records: list[Record],
    wl: Conv2dWorkload,
    device_name: str,
    m: int | None = None,
    fusion: str | None = None,
    accurate: bool = False,
) -> list[Record]:
    """Correct, timed records of wl's shape, dtype, accumulator, epilogue and y on device_name whose
    config the code still takes for wl (a rule added after a record was logged drops it); m and
    fusion restrict them when given (wl.m is not used: m=None searches every tile size);
    accurate keeps only schemes within the dtype's accuracy bar (math/tolerance.py)."""
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
        and not (accurate and not within_bar(dataclasses.replace(wl, m=r.m)))
        and not r.kernel_config().problems(dataclasses.replace(wl, m=r.m))
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
    log: Path | list[Record],
    wl: Conv2dWorkload,
    device_name: str,
    m: int | None = None,
    fusion: str | None = None,
    accurate: bool = False,
) -> tuple[FamilyConfig, dict] | None:
    """(config, record as a dict) of the fastest correct latest record (latest()), or None when
    the log has no record for this workload and device. The record's "m" is the tile size to
    build with. log is a path or its records, read once by the caller.

    device_name is the driver's name ('NVIDIA H100 80GB HBM3') or any part of it ('h100').
    """
    if isinstance(log, Path):
        if not log.is_file():
            raise WinoError(f"tuning log {log} not found")
        log = read_records(log)
    candidates = matching(latest(log), wl, device_name, m, fusion, accurate)
    if not candidates:
        return None
    best = min(candidates, key=lambda r: r.median_us)
    return best.kernel_config(), asdict(best)


def best_for_build(
    log: Path, probe: Conv2dWorkload, device_name: str, m: int | None
) -> tuple[tuple[Conv2dWorkload, FamilyConfig], dict, str] | None:
    """The build's pick: the best record of probe at m (default 2, within every dtype's accuracy
    bar), else of probe with its dtype's default y, else without the epilogue.
    ((workload, config), record, what the pick differs in ('' for probe itself)), or None."""
    default_y = resolve_output(probe.dtype, "")
    lookups = [probe] + ([dataclasses.replace(probe, out=default_y)]
                         if probe.out != default_y else [])
    if probe.epilogue:
        lookups += [dataclasses.replace(lookup, epilogue=()) for lookup in lookups]
    records = read_records(log) if log.is_file() else None
    if records is None:
        raise WinoError(f"tuning log {log} not found")
    for lookup in lookups:
        found = best_config(records, lookup, device_name, m=m or DEFAULT_M)
        if found is not None:
            cfg, record = found
            instead = " and ".join(
                ([f"an {lookup.out} y"] if lookup.out != probe.out else [])
                + (["no epilogue"] if lookup.epilogue != probe.epilogue else []))
            return (dataclasses.replace(probe, m=record["m"]), cfg), record, instead
    return None
