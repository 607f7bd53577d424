"""Measure a built batch: nvcc in parallel threads, one run at a time per GPU, a record each.

TVM-free (runs on the GPU machine). Resumable: candidates the log already holds for this device
are skipped. A failing candidate becomes a record with its status and reason, never an abort.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ..device import Gpu
from ..errors import WinoError
from ..runner import compile_program, run_program
from .manifest import Entry, Manifest
from .records import Record, append_record, candidate_record, read_records

CompileFn = Callable[[Path, str], Path]  # (artifact folder, arch) -> binary
RunFn = Callable[[Path, list[str], float], dict]  # (binary, args, timeout_s) -> harness record
REASON_CHARS = 2000
# Statuses worth measuring again with --retry-failed (the others are facts about the config).
RETRYABLE = ("compile_error", "run_error", "timeout")


@dataclass(frozen=True)
class Settings:
    """How to compile and run each candidate."""

    arch: str
    nvcc: str
    checks: int = 3
    iters: int = 100
    warmup: int = 20
    timeout_s: float = 120.0
    jobs: int = 1  # parallel nvcc processes

    def run_args(self) -> list[str]:
        return ["--checks", str(self.checks), "--iters", str(self.iters),
                "--warmup", str(self.warmup)]


@dataclass(frozen=True)
class RunResult:
    """What one run of a binary gave: the harness record, or the error and whether it timed out."""

    record: dict | None
    error: str = ""
    timed_out: bool = False


def run_once(run_fn: RunFn, binary: Path, args: list[str], timeout_s: float) -> RunResult:
    """Run the binary once; errors are returned, not raised (this runs in a worker process)."""
    start = time.monotonic()
    try:
        return RunResult(run_fn(binary, args, timeout_s))
    except WinoError as exc:
        # runner.run_program reports a timeout as a WinoError like any other failure.
        timed_out = time.monotonic() - start >= timeout_s
        return RunResult(None, str(exc)[-REASON_CHARS:], timed_out)


def outcome(result: RunResult) -> dict:
    """Record fields (status, reason, timings, errors) of one run."""
    if result.record is None:
        return {"status": "timeout" if result.timed_out else "run_error", "reason": result.error}
    rec = result.record
    fields = {k: rec.get(k) for k in ("median_us", "tflops", "rel_l2_err", "max_abs_err")}
    if rec.get("correct"):
        return {"status": "ok", **fields}
    reason = f"rel_l2_err {rec.get('rel_l2_err')} > tolerance {rec.get('tolerance')}"
    if rec.get("nonfinite"):
        reason = f"{rec['nonfinite']} non-finite outputs; {reason}"
    return {"status": "wrong", "reason": reason, **fields}


def _pin_gpu(select: str) -> None:
    os.environ["CUDA_VISIBLE_DEVICES"] = select


class Session:
    """One measurement session over a batch: the log, the progress count, the writer lock."""

    def __init__(self, log: Path, commit: str, nvcc: str, total: int, echo: Callable[[str], None]):
        self.log, self.commit, self.nvcc, self.total, self.echo = log, commit, nvcc, total, echo
        self.done = 0
        self.records: list[Record] = []
        self.stop = threading.Event()
        self._lock = threading.Lock()

    def record(self, entry: Entry, gpu: Gpu, **values) -> None:
        device = values.pop("device", None) or gpu.name
        rec = candidate_record(entry.candidate(), device=device, nvcc=self.nvcc,
                               driver=gpu.driver, commit=entry.commit or self.commit, **values)
        with self._lock:
            append_record(self.log, rec)
            self.records.append(rec)
            self.done += 1
            self.echo(f"[{self.done}/{self.total}] {entry.name} {_describe(rec)}")


def _describe(rec: Record) -> str:
    if rec.status == "ok" and rec.median_us is not None and math.isfinite(rec.median_us):
        return f"ok {rec.median_us:.1f} us (rel_l2 {rec.rel_l2_err:.1e})"
    first = rec.reason.strip().splitlines()[:1]
    return f"{rec.status}: {first[0] if first else ''}".rstrip(": ")


def pending(manifest: Manifest, log: Path, device: str, retry_failed: bool) -> list[Entry]:
    """Entries the log does not yet hold for this device (retry_failed: nor only as a failure
    that may have been the machine's fault)."""
    done = {
        r.key for r in read_records(log)
        if r.device == device and not (retry_failed and r.status in RETRYABLE)
    }
    return [e for e in manifest.entries if e.candidate().key not in done]


def measure_batch(
    batch: Path,
    log: Path,
    gpus: list[Gpu],
    settings: Settings,
    compile_fn: CompileFn = compile_program,
    run_fn: RunFn = run_program,
    retry_failed: bool = False,
    echo: Callable[[str], None] = print,
) -> list[Record]:
    """Compile and measure every pending candidate of batch; return the new records."""
    if not gpus:
        raise WinoError("no GPU visible to measure on (nvidia-smi lists none)")
    manifest = Manifest.read(batch)
    todo = pending(manifest, log, gpus[0].name, retry_failed)
    skipped = len(manifest.entries) - len(todo)
    echo(f"{len(todo)} candidates to measure on {len(gpus)} GPU(s) ({gpus[0].name}), "
         f"{skipped} already in {log}")
    session = Session(log, manifest.commit, settings.nvcc, len(todo), echo)
    for entry in todo:
        if not entry.built:
            session.record(entry, gpus[0], status="build_error", reason=entry.reason)
    compiled: queue.Queue[tuple[Entry, Path] | None] = queue.Queue()
    workers = [
        threading.Thread(target=_gpu_worker, args=(gpu, compiled, session, settings, run_fn,
                                                   len(gpus) > 1))
        for gpu in gpus
    ]
    for worker in workers:
        worker.start()
    try:
        _compile_all([e for e in todo if e.built], batch, settings, compile_fn, compiled,
                     session, gpus[0])
    except BaseException:
        # Ctrl-C (or a bug): let each worker finish only the run it is in.
        session.stop.set()
        raise
    finally:
        for _ in workers:
            compiled.put(None)
        for worker in workers:
            worker.join()
    return session.records


def _compile_all(
    entries: list[Entry],
    batch: Path,
    settings: Settings,
    compile_fn: CompileFn,
    compiled: queue.Queue,
    session: Session,
    gpu: Gpu,
) -> None:
    """nvcc on `jobs` threads; each binary goes to the GPU workers as soon as it exists."""
    pool = ThreadPoolExecutor(settings.jobs)
    try:
        futures = {pool.submit(compile_fn, batch / e.name, settings.arch): e for e in entries}
        for future in as_completed(futures):
            entry = futures[future]
            try:
                compiled.put((entry, future.result()))
            except WinoError as exc:
                session.record(entry, gpu, status="compile_error",
                               reason=str(exc)[-REASON_CHARS:])
    finally:
        pool.shutdown(cancel_futures=True)


def _gpu_worker(
    gpu: Gpu,
    compiled: queue.Queue,
    session: Session,
    settings: Settings,
    run_fn: RunFn,
    pin: bool,
) -> None:
    """Run binaries one at a time on gpu. With several GPUs each run happens in a process pinned
    to its GPU through CUDA_VISIBLE_DEVICES (the harness always uses device 0)."""
    pool: Executor | None = None
    if pin:
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_pin_gpu, initargs=(gpu.select,))
    try:
        while (item := compiled.get()) is not None and not session.stop.is_set():
            entry, binary = item
            job = (run_fn, binary, settings.run_args(), settings.timeout_s)
            result = pool.submit(run_once, *job).result() if pool else run_once(*job)
            if session.stop.is_set():
                break  # Ctrl-C reached the program too: its failure is not the config's
            device = (result.record or {}).get("device")
            session.record(entry, gpu, device=device, **outcome(result))
    finally:
        if pool is not None:
            pool.shutdown()
