"""The f23 family's config with no tuning, from the shape: the rules that the H100 tuning log's
picks (N=32 and 128 at 7^2-28^2, C=128-512) and the H200 sweeps follow."""

from __future__ import annotations

import dataclasses
import math

from ...device import DeviceLimits
from ...errors import WinoError
from ...workload import Conv2dWorkload
from .config import TB_K, F23Config, row_tiles

STRIP = 8  # tiles per strip on wider rows (experiments: f23_strips)
# Narrower strips, with compact rows, where they take fewer rounds of persistent blocks: at W =
# 28, 42 and 56 they leave no pad tiles (experiments: f23_strips7_rounds).
NARROW_STRIP = 7


def default_config(wl: Conv2dWorkload, device: DeviceLimits) -> F23Config:
    """Strips of 8 tiles on rows of more than 8 (fewer patch pixels a GEMM row); row pairs (one
    transformed row serves two GEMM rows) and two chunks an input stage (64-byte copies) where
    they apply; persistent blocks where the tiles exceed half the SMs, else a C split of two;
    compact rows (no garbage row an image), or compact rows on strips of 7, where they take fewer
    rounds of persistent blocks (the fewest; ties keep the simpler); four input buffers where
    they fit, three for persistent blocks on strips; the producer warpgroup where C is not split
    (the H200 sweeps' picks: experiments f23_strips, f23_xchunks, f23_stages_pb,
    f23_producer_adopt, f23_strips7_rounds)."""
    strip = default_strip(wl)
    cfg = F23Config(stages=4, row_pairs=True, strip=strip)
    tiles = math.prod(cfg.grid(wl)[:2])
    if 2 * tiles > device.sms:
        cfg = dataclasses.replace(cfg, persist=True, stages=3 if strip else 4)
        compact = dataclasses.replace(cfg, compact_rows=True, row_pairs=wl.h % 2 == 0)
        narrow = dataclasses.replace(compact, strip=NARROW_STRIP)
        options = (compact, narrow) if strip else (compact,)
        fits = [c for c in options if not c.problems(wl, device)]
        cfg = min([cfg, *fits], key=lambda c: persistent_rounds(wl, c, device))  # ties: the first
    elif wl.c // TB_K % 2 == 0:
        cfg = dataclasses.replace(cfg, c_split=2)
    if wl.c // TB_K // cfg.c_split % 2 == 0:
        cfg = dataclasses.replace(cfg, x_chunks=2)
    if cfg.c_split == 1:
        cfg = dataclasses.replace(cfg, producer=True)
    one_chunk = dataclasses.replace(cfg, x_chunks=1)
    fallbacks = (cfg, dataclasses.replace(cfg, stages=3), one_chunk,
                 dataclasses.replace(one_chunk, stages=3), F23Config(strip=strip))
    for candidate in fallbacks:
        if not candidate.problems(wl, device):
            return candidate
    raise WinoError(f"f23 has no config for {wl.key} on {device.name}: "
                    + "; ".join(F23Config(strip=strip).problems(wl, device)))


def persistent_rounds(wl: Conv2dWorkload, cfg: F23Config, device: DeviceLimits) -> int:
    """Rounds of persistent blocks, one an SM, over cfg's tiles."""
    return -(-cfg.grid(wl)[0] // device.sms)


def default_strip(wl: Conv2dWorkload) -> int:
    """Strips of STRIP tiles on rows of more than STRIP tiles, else whole rows."""
    return STRIP if row_tiles(wl) > STRIP else 0
