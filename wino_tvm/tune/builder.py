"""Generate candidates on the CPU side: one artifact folder per candidate (imports TVM)."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from ..artifact import CONFIG_FILE, build_artifact
from ..commit import commit_id
from ..device import DeviceLimits
from ..harness import PROGRAM_FILE
from .manifest import Entry, Manifest
from .space import Candidate

REASON_CHARS = 2000
CANDIDATES_PER_PROCESS = 30


def _artifact_config(out_dir: Path) -> dict:
    """The artifact's config.json (written with the sources, after TVM and the reconstructor
    succeeded); empty when the folder holds no complete artifact."""
    config = out_dir / CONFIG_FILE
    if not (config.is_file() and (out_dir / PROGRAM_FILE).is_file()):
        return {}
    try:
        return json.loads(config.read_text())
    except json.JSONDecodeError:
        return {}


def _already_built(cand: Candidate, out_dir: Path) -> bool:
    """A folder from an earlier (interrupted) build of the same config."""
    return _artifact_config(out_dir).get("config") == cand.cfg.name(cand.wl)


def build_one(cand: Candidate, out_dir: Path, arch: str) -> str | None:
    """Build cand's artifact into out_dir; the reason it failed, or None."""
    if _already_built(cand, out_dir):
        return None
    try:
        build_artifact(cand.wl, cand.cfg, out_dir, arch, log=lambda _msg: None)
    # Any failure (TVM, reconstructor, harness) belongs to this candidate alone: record it and
    # go on with the others.
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:REASON_CHARS]
    return None


def build_batch(
    candidates: list[Candidate],
    batch: Path,
    arch: str,
    jobs: int = 1,
    log: Callable[[str], None] = print,
) -> list[Entry]:
    """Build every candidate under batch/<candidate name>, `jobs` processes at a time."""
    batch.mkdir(parents=True, exist_ok=True)
    entries: dict[str, Entry] = {}

    def done(i: int, cand: Candidate, reason: str | None) -> None:
        commit = _artifact_config(batch / cand.name).get("commit", "") if reason is None else ""
        entries[cand.name] = Entry.of(cand, reason, commit)
        status = "built" if reason is None else f"FAILED: {reason.splitlines()[0]}"
        log(f"[{i}/{len(candidates)}] {cand.name} {status}")

    # Each builder process pays TVM's import (about 40 s, mostly its CUDA tensor intrinsics) before
    # its first build (about 1.5 s each): a process is worth it only for a few dozen candidates.
    jobs = min(jobs, len(candidates) // CANDIDATES_PER_PROCESS)
    if jobs <= 1:
        for i, cand in enumerate(candidates, 1):
            done(i, cand, build_one(cand, batch / cand.name, arch))
    else:
        # spawn, not fork: forking a process that has TVM's thread pools loaded can deadlock.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = {pool.submit(build_one, c, batch / c.name, arch): c for c in candidates}
            for i, future in enumerate(as_completed(futures), 1):
                done(i, futures[future], future.result())
    return [entries[c.name] for c in candidates]


def build_plan(candidates: list[Candidate], batch: Path, device: DeviceLimits,
               prefix: str | None = None, arch: str = "sm_90", jobs: int = 2) -> list[Entry]:
    """An experiment's plan (its plan.py; docs/experiments.md): candidates built under batch, then
    either every artifact folder there renamed prefix + name (one side of a same-run A/B,
    `python -m wino_tvm.batch`), or, without prefix, the manifest `tune measure` reads."""
    print(f"{len(candidates)} candidates", flush=True)
    entries = build_batch(candidates, batch, arch, jobs=jobs)
    if prefix is None:
        Manifest(tuple(entries), arch, commit_id(), dataclasses.asdict(device)).write(batch)
    else:
        for entry in batch.iterdir():
            if entry.is_dir() and not entry.name.startswith(prefix):
                entry.rename(entry.with_name(f"{prefix}{entry.name}"))
    print(f"{batch}: {len(entries)} candidates ({sum(not e.built for e in entries)} failed)")
    return entries
