"""The lane family's config with no tuning: the H100 tuning log's picks, by channel count and
precision, first to last until one fits the workload and device; else the space's best guess."""

from __future__ import annotations

from ...device import DeviceLimits
from ...errors import WinoError
from ...workload import Conv2dWorkload
from ..base import product
from .config import LaneConfig

_STACK = dict(wgmma=True, tma=True, stack=True, groups=4)
_TMA = dict(wgmma=True, tma=True, groups=4)
# (largest C, accumulator): the picks that won at such workloads, best first (tuning_logs/
# h100.jsonl: C=64 at 224^2-960^2 and N=8-128 56^2; C=128 at 28^2; C=256 at 14^2).
PICKS = {
    (64, "fp16"): (LaneConfig(tb_n=32, tb_k=64, k_split=2, **_STACK),
                   LaneConfig(tb_n=32, tb_k=64, stages=3, **_STACK),
                   LaneConfig(tb_n=64, tb_k=32, tap_split=2, **_TMA)),
    (64, "fp32"): (LaneConfig(tb_n=32, tb_k=64, exchange_own=True, tap_split=2, **_TMA),
                   LaneConfig(tb_n=32, tb_k=32, stages=3, tap_split=2, **_STACK)),
    (128, "fp16"): (LaneConfig(tb_n=32, tb_k=32, wgmma=True, groups=4, tap_split=2),
                    LaneConfig(tb_n=32, tb_k=16, exchange_own=True, groups=6, tap_split=2)),
    (128, "fp32"): (LaneConfig(tb_n=32, tb_k=16, exchange_own=True, groups=4, tap_split=2),),
    (256, "fp16"): (LaneConfig(tb_n=16, tb_k=16, groups=8),),
    (256, "fp32"): (LaneConfig(tb_n=16, tb_k=16, groups=4),),
}
# int8 runs on the fp16 MMA with fp16 accumulators; its picks at C=64 took twice the channels.
INT8_PICKS = (LaneConfig(tb_n=64, tb_k=64, tap_split=2, **_STACK),
              LaneConfig(tb_n=64, tb_k=32, stages=3, tap_split=2, **_STACK))


# fp16 accumulators at C <= 64: the H100 log's pick by size, which the H200 confirmed (within
# 10% of each workload's tuned pick): one image of at most 64k pixels the stack with a third
# buffer; many small images (N >= 64 of at most 56^2) the unstacked tap split; else the stack
# with two channel slices.
SMALL_IMAGE_PIXELS = 64 * 1024
MANY_IMAGES, SMALL_IMAGE_SIDE = 64, 56


def _c64_fp16_order(wl: Conv2dWorkload) -> tuple[LaneConfig, ...]:
    ks2, st3, split = PICKS[(64, "fp16")]
    if wl.n * wl.h * wl.w <= SMALL_IMAGE_PIXELS:
        return st3, ks2, split
    if wl.n >= MANY_IMAGES and max(wl.h, wl.w) <= SMALL_IMAGE_SIDE:
        return split, ks2, st3
    return ks2, st3, split


def _preferred(wl: Conv2dWorkload) -> tuple[LaneConfig, ...]:
    if wl.c <= 64 and wl.accum == "fp16" and wl.dtype == "fp16":
        return _c64_fp16_order(wl)
    picks = [cfgs for (most, accum), cfgs in sorted(PICKS.items())
             if wl.c <= most and accum == wl.accum]
    preferred = picks[0] if picks else ()
    return (INT8_PICKS if wl.dtype == "int8" and wl.c <= 64 else ()) + preferred


def _guess_key(cfg: LaneConfig) -> tuple:
    """Fewer warps' worth of registers wasted, whole warpgroups on wgmma, bigger chunks."""
    return (not cfg.wgmma, -cfg.groups * cfg.k_split * cfg.tap_split, -cfg.tb_k, -cfg.tb_n,
            cfg.stages)


def default_config(wl: Conv2dWorkload, device: DeviceLimits) -> LaneConfig:
    for cfg in _preferred(wl):
        if not cfg.problems(wl, device):
            return cfg
    fits = [cfg for cfg in product(LaneConfig, {"wgmma": (False, True)})
            if not cfg.problems(wl, device)]
    if not fits:
        raise WinoError(f"lane has no config for {wl.key} {wl.dtype}/{wl.accum} on "
                        f"{device.name}")
    return min(fits, key=_guess_key)
