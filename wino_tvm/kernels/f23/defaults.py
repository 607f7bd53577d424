"""The f23 family's config with no tuning, from the shape: the rules the H100 tuning log's
picks follow (N=32 and 128 at 7^2-28^2, C=128-512)."""

from __future__ import annotations

import dataclasses
import math

from ...device import DeviceLimits
from ...errors import WinoError
from ...workload import Conv2dWorkload
from .config import TB_K, F23Config

WIDE_STRIP = 16  # tiles per strip where whole rows do not fit (experiments: f23_strips)


def default_config(wl: Conv2dWorkload, device: DeviceLimits) -> F23Config:
    """Whole rows, or strips where they do not fit (default_strip); four input buffers; a C
    split of two where the tiles fill at most half the SMs, else persistent blocks; row pairs
    on narrow images (one transformed row serves two); compact rows where an image's garbage
    row would cost a round of persistent blocks."""
    strip = default_strip(wl, device)
    cfg = F23Config(stages=4, row_pairs=wl.w <= 14, strip=strip)
    tiles = math.prod(F23Config(stages=4, strip=strip).grid(wl)[:2])
    if 2 * tiles > device.sms:
        cfg = dataclasses.replace(cfg, persist=True)
        rounds = -(-tiles // device.sms)
        compact = dataclasses.replace(cfg, compact_rows=True)
        compact_tiles = compact.grid(wl)[0]
        if -(-compact_tiles // device.sms) < rounds and not compact.problems(wl, device):
            cfg = compact
    elif wl.c // TB_K % 2 == 0:
        cfg = dataclasses.replace(cfg, c_split=2)
    for candidate in (cfg, dataclasses.replace(cfg, stages=3), F23Config(strip=strip)):
        if not candidate.problems(wl, device):
            return candidate
    raise WinoError(f"f23 has no config for {wl.key} on {device.name}: "
                    + "; ".join(F23Config(strip=strip).problems(wl, device)))


def default_strip(wl: Conv2dWorkload, device: DeviceLimits) -> int:
    """Whole rows where their patches fit in three stages, else strips of 16 tiles (32 pixels)."""
    return 0 if F23Config().smem_bytes(wl) <= device.smem_per_block else WIDE_STRIP
