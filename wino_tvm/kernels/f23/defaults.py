"""The f23 family's config with no tuning, from the shape: the rules the H100 tuning log's
picks follow (N=32 and 128 at 7^2-28^2, C=128-512)."""

from __future__ import annotations

import dataclasses
import math

from ...device import DeviceLimits
from ...errors import WinoError
from ...workload import Conv2dWorkload
from .config import TB_K, F23Config, row_tiles

STRIP = 8  # tiles per strip on wider rows (experiments: f23_strips)


def default_config(wl: Conv2dWorkload, device: DeviceLimits) -> F23Config:
    """Strips of 8 tiles on rows of more than 8 (fewer patch pixels a GEMM row); row pairs (one
    transformed row serves two GEMM rows) and two chunks an input stage (64-byte copies) where
    they apply; persistent blocks where the tiles exceed half the SMs, else a C split of two;
    compact rows where an image's garbage row would cost a round of persistent blocks; four
    input buffers where they fit, three for persistent blocks on strips; the producer warpgroup
    where C is not split (the H200 sweeps' picks: experiments f23_strips, f23_xchunks,
    f23_stages_pb, f23_producer_adopt)."""
    strip = default_strip(wl)
    cfg = F23Config(stages=4, row_pairs=True, strip=strip)
    tiles = math.prod(cfg.grid(wl)[:2])
    if 2 * tiles > device.sms:
        cfg = dataclasses.replace(cfg, persist=True, stages=3 if strip else 4)
        rounds = -(-tiles // device.sms)
        compact = dataclasses.replace(cfg, compact_rows=True, row_pairs=wl.h % 2 == 0)
        if -(-compact.grid(wl)[0] // device.sms) < rounds and not compact.problems(wl, device):
            cfg = compact
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


def default_strip(wl: Conv2dWorkload) -> int:
    """Strips of STRIP tiles on rows of more than STRIP tiles, else whole rows."""
    return STRIP if row_tiles(wl) > STRIP else 0
