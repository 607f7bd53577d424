"""JIT build of one kernel library and its on-disk cache (TVM-free for the template families).

A library is keyed by the sha256 of its source, the target arch, nvcc's version and flags (the
source names the config and the workload). Builds are safe under concurrent processes: one
holds the key's file lock and compiles into a temporary file that is renamed into place; the
others wait on the lock and load the result.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

from ..artifact import artifact_name
from ..device import nvcc_version
from ..harness import workload_spec
from ..kernels import FamilyConfig, generate
from ..library import WinoLibrary, compile_library_source, render_library
from ..workload import Conv2dWorkload

CACHE_ENV = "WINO_TVM_CACHE"
# The commit in a library's description: fixed, so that a new commit that leaves a kernel's
# source as it was reuses its build.
JIT_COMMIT = "jit"
_LOADED: dict[Path, WinoLibrary] = {}
_LOADED_LOCK = threading.Lock()


def cache_root() -> Path:
    """$WINO_TVM_CACHE, else ~/.cache/wino_tvm (XDG_CACHE_HOME honoured)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "wino_tvm"


@cache
def _nvcc_version() -> str:
    return nvcc_version()


def library_source(wl: Conv2dWorkload, cfg: FamilyConfig, arch: str) -> str:
    """The shared library's .cu for cfg on wl (the family's generator, no artifact folder)."""
    made = generate(wl, cfg, arch, log=lambda _m: None)
    return render_library(workload_spec(wl, cfg.fusion, cfg.name(wl), JIT_COMMIT, made.kernels))


def _cached_path(name: str, source: str, arch: str) -> Path:
    key = hashlib.sha256("\n".join([source, arch, _nvcc_version()]).encode()).hexdigest()[:16]
    return cache_root() / "kernels" / f"{name}-{key}" / "libwino.so"


def library_path(wl: Conv2dWorkload, cfg: FamilyConfig, arch: str) -> tuple[Path, str]:
    """(where the built library lives in the cache, its source)."""
    source = library_source(wl, cfg, arch)
    return _cached_path(artifact_name(wl, cfg), source, arch), source


def build(wl: Conv2dWorkload, cfg: FamilyConfig, arch: str, quiet: bool = False) -> Path:
    """The cached library of cfg on wl for arch, compiled first if the cache lacks it."""
    return _build_at(*library_path(wl, cfg, arch), arch, f"{cfg.name(wl)} for {wl.key}", quiet)


def build_source(name: str, source: str, arch: str) -> Path:
    """The cached library of a source that names no workload (a kernel of any shape)."""
    return _build_at(_cached_path(name, source, arch), source, arch, name, quiet=False)


def _build_at(path: Path, source: str, arch: str, label: str, quiet: bool) -> Path:
    """The library at path, compiled from source first if the cache lacks it."""
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building the same key
        if path.is_file():
            return path
        if not quiet:
            print(f"wino_tvm: compiling {label} ({arch}; first use, cached in {path.parent})",
                  file=sys.stderr, flush=True)
        (path.parent / "library.cu").write_text(source)
        with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
            built = compile_library_source(path.parent / "library.cu", arch,
                                           Path(tmp) / path.name)
            os.replace(built, path)
    return path


def build_all(items: Iterable[tuple[Conv2dWorkload, FamilyConfig]], arch: str,
              jobs: int | None = None) -> list[Path | Exception]:
    """Build many libraries in parallel (nvcc is the slow part), each its path or its error,
    with a progress line per finished build. Each source is generated once."""
    items = list(items)

    def located(wl: Conv2dWorkload, cfg: FamilyConfig) -> tuple[Path, str] | Exception:
        try:
            return library_path(wl, cfg, arch)
        except Exception as exc:  # a config that does not generate: its result is the error
            return exc
    where = [located(wl, cfg) for wl, cfg in items]
    todo = {i for i, found in enumerate(where)
            if isinstance(found, Exception) or not found[0].is_file()}
    if todo:
        print(f"wino_tvm: compiling {len(todo)} kernel libraries for {arch} (first use; cached "
              f"in {cache_root()})", file=sys.stderr, flush=True)
    done = 0

    def one(i: int) -> Path | Exception:
        nonlocal done
        wl, cfg = items[i]
        result = where[i]
        if not isinstance(result, Exception):
            try:
                result = _build_at(*result, arch, f"{cfg.name(wl)} for {wl.key}", quiet=True)
            except Exception as exc:  # one config's failure must not stop the others
                result = exc
        if i in todo:
            done += 1
            print(f"wino_tvm: [{done}/{len(todo)}] {cfg.name(wl)} {wl.key}",
                  file=sys.stderr, flush=True)
        return result

    with ThreadPoolExecutor(jobs or os.cpu_count() or 1) as pool:
        return list(pool.map(one, range(len(items))))


def load(path: Path) -> WinoLibrary:
    """The library at path, loaded once per process."""
    with _LOADED_LOCK:
        if path not in _LOADED:
            _LOADED[path] = WinoLibrary(path)
        return _LOADED[path]
