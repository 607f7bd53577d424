"""Timing and error measures of GPU calls, shared by the benchmarks and the runtime's choice
(PyTorch; GPU side only)."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

MAX_ROTATE = 64
CALIBRATION_CYCLES = 10_000_000
# A host-bound timing (the GPU caught up with the enqueueing host, so the events time host gaps
# too: 7 of 236 timings in one run) is taken again, at most this many times in all.
TIMING_ATTEMPTS = 3


@dataclass(frozen=True)
class Options:
    """How to measure: untimed calls first, timed calls (the median is reported), seed."""

    warmup: int = 10
    iters: int = 100
    seed: int = 0



def rotation_count(shape: tuple[int, int, int, int, int], elem_bytes: int, l2_bytes: int) -> int:
    """Input/output sets to cycle through so that one pass over them moves over 2x the L2."""
    n, h, w, c, k = shape
    pair = n * h * w * (c + k) * elem_bytes
    return max(2, min(MAX_ROTATE, 2 * l2_bytes // pair + 1))


def errors(y: torch.Tensor, ref: torch.Tensor) -> tuple[float, float, int]:
    """(rel L2, max abs, count of non-finite); the norms cover the finite outputs, as in the
    standalone harness, so a few unwritten elements do not hide how close the rest is."""
    finite = torch.isfinite(y)
    diff = torch.where(finite, y - ref, torch.zeros_like(y))
    err2, ref2 = float((diff * diff).sum()), float((ref * ref).sum())
    rel = math.sqrt(err2 / ref2) if ref2 > 0 else (math.inf if err2 > 0 else 0.0)
    return rel, float(diff.abs().max()), int((~finite).sum())


class Timer:
    """CUDA-event timing of each call, with a spin kernel in front so that the host enqueues
    every call before the GPU starts them: the events then time the GPU, not Python."""

    def __init__(self) -> None:
        for _ in range(2):  # the first spin also loads the kernel
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.cuda._sleep(CALIBRATION_CYCLES)
            stop.record()
            torch.cuda.synchronize()
        self.cycles_per_us = CALIBRATION_CYCLES / (start.elapsed_time(stop) * 1e3)

    def time(self, call: Callable[[int], None], rotate: int, opts: Options) -> dict:
        """Time `call` until one timing is not host-bound (TIMING_ATTEMPTS at most); the last
        timing, with the attempts it took."""
        attempts = 0
        while True:
            attempts += 1
            result = self._time_once(call, rotate, opts)
            if not result["host_bound"] or attempts == TIMING_ATTEMPTS:
                return {**result, "timing_attempts": attempts}

    def _time_once(self, call: Callable[[int], None], rotate: int, opts: Options) -> dict:
        for i in range(opts.warmup):
            call(i % rotate)
        torch.cuda.synchronize()
        probe = min(opts.iters, 10)
        t0 = time.perf_counter()
        for i in range(probe):
            call(i % rotate)
        host_us = (time.perf_counter() - t0) * 1e6 / probe
        torch.cuda.synchronize()

        def event() -> torch.cuda.Event:
            return torch.cuda.Event(enable_timing=True)

        starts, stops = [event() for _ in range(opts.iters)], [event() for _ in range(opts.iters)]
        spin_start, spin_stop = event(), event()
        # Twice the measured enqueue time (events add host time too), plus 2 ms of margin.
        cover_us = 2 * host_us * opts.iters + 2000
        spin_start.record()
        torch.cuda._sleep(int(cover_us * self.cycles_per_us))
        spin_stop.record()
        t0 = time.perf_counter()
        for i in range(opts.iters):
            starts[i].record()
            call(i % rotate)
            stops[i].record()
        enqueue_us = (time.perf_counter() - t0) * 1e6
        torch.cuda.synchronize()
        us = [1e3 * s.elapsed_time(e) for s, e in zip(starts, stops, strict=True)]
        return {
            "median_us": statistics.median(us),
            "min_us": min(us),
            "mean_us": statistics.fmean(us),
            "iters": opts.iters,
            "rotate": rotate,
            # The GPU may have caught up with the host: then the times include host gaps.
            "host_bound": enqueue_us > 1e3 * spin_start.elapsed_time(spin_stop),
        }


