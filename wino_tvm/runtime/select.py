"""Deciding a layer's kernel on the GPU: the candidates of runtime.choice built, checked against
float32 and timed against cuDNN on the same random inputs, the decision kept in the user cache
(PyTorch; GPU side)."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import torch
import torch.nn.functional as F

from ..bench.timing import Options, Timer, errors, rotation_count
from ..commit import commit_id
from ..device import DeviceLimits, nvcc_version
from ..kernels import FamilyConfig
from ..math.tolerance import rel_l2_tolerance
from ..tune.records import Record, append_record
from ..workload import Conv2dWorkload, epilogue_text
from . import cache
from .choice import (
    AUTOTUNE_LOGGED,
    Choice,
    ChoiceCache,
    Pick,
    Policy,
    candidates,
    choice_key,
    unsupported_reason,
)

TIMING = Options(warmup=5, iters=30)
# A kernel replaces cuDNN only when this much faster: a decision's timing has noise, and a
# layer re-timed in the model benchmark came out 0.92x where its decision had seen it ahead.
MIN_SPEEDUP = 1.03
_TIMER: Timer | None = None


def timer() -> Timer:
    global _TIMER
    if _TIMER is None:
        _TIMER = Timer()
    return _TIMER


@dataclasses.dataclass
class Trial:
    """Random inputs of one layer shape (a few sets, to rotate past L2) and the float32 result
    of set 0."""

    xs: list[torch.Tensor]
    w: torch.Tensor  # K x C x 3 x 3
    bias: torch.Tensor | None
    residuals: list[torch.Tensor | None]
    reference: torch.Tensor

    @classmethod
    def of(cls, base: Conv2dWorkload, l2_bytes: int) -> Trial:
        n, h, w, c, k = base.n, base.h, base.w, base.c, base.k
        gen = torch.Generator(device="cuda").manual_seed(0)
        sets = rotation_count((n, h, w, c, k), 2, l2_bytes)

        def rand(*size: int) -> torch.Tensor:
            return (torch.rand(size, generator=gen, device="cuda") * 2 - 1).half()

        xs = [rand(n, c, h, w).contiguous(memory_format=torch.channels_last) for _ in range(sets)]
        # channels_last as x: else cuDNN converts the weight on every call, which the timing
        # would charge to cuDNN (up to 10 us a call at C = K = 512).
        weight = (rand(k, c, 3, 3) / (3 * c**0.5)).contiguous(memory_format=torch.channels_last)
        bias = rand(k) if "bias" in base.epilogue else None
        residuals = [rand(n, k, h, w).contiguous(memory_format=torch.channels_last)
                     if "residual" in base.epilogue else None for _ in range(sets)]
        reference = epilogue(F.conv2d(xs[0].float(), weight.float(), None, padding=1),
                             None if bias is None else bias.float(),
                             None if residuals[0] is None else residuals[0].float(),
                             "relu" in base.epilogue)
        return cls(xs, weight, bias, residuals, reference)


def epilogue(y: torch.Tensor, bias: torch.Tensor | None, residual: torch.Tensor | None,
             relu: bool) -> torch.Tensor:
    """What the fused epilogue computes, as separate PyTorch ops (in place on y)."""
    if bias is not None:
        y += bias.view(1, -1, 1, 1)
    if residual is not None:
        y += residual
    return y.relu_() if relu else y


@contextlib.contextmanager
def cudnn_benchmark() -> Iterator[None]:
    """cuDNN picks its algorithm by timing them (cudnn.benchmark) inside, whatever the caller
    set: a kernel replaces cuDNN's fastest, not its heuristic pick."""
    before = torch.backends.cudnn.benchmark
    torch.backends.cudnn.benchmark = True
    try:
        yield
    finally:
        torch.backends.cudnn.benchmark = before


def cudnn_call(trial: Trial, relu: bool) -> Callable[[int], torch.Tensor]:
    """The layer as PyTorch runs it: cuDNN's conv (with bias), then the epilogue's ops."""
    def call(r: int) -> torch.Tensor:
        return epilogue(F.conv2d(trial.xs[r], trial.w, trial.bias, padding=1), None,
                        trial.residuals[r], relu)
    return call


def wino_call(kernel, trial: Trial) -> Callable[[int], torch.Tensor]:
    def call(r: int) -> torch.Tensor:
        return kernel(trial.xs[r], trial.bias, trial.residuals[r])
    return call


def _record(wl: Conv2dWorkload, cfg: FamilyConfig, device: str, us: float, rel: float,
            max_abs: float, ok: bool) -> Record:
    return Record(workload_key=wl.key, workload=wl.shape_dict(), dtype=wl.dtype, accum=wl.accum,
                  m=wl.m, fusion=cfg.fusion, config=cfg.name(wl), device=device,
                  nvcc=nvcc_version(), driver=torch.version.cuda or "", status="ok" if ok
                  else "wrong", reason="runtime autotune", median_us=us,
                  tflops=wl.flops / us / 1e6, rel_l2_err=rel, max_abs_err=max_abs,
                  commit=commit_id(), epilogue=epilogue_text(wl.epilogue), out=wl.out)


def measure(pool: list[Pick], base: Conv2dWorkload, device: DeviceLimits, arch: str,
            record_to: Path | None
            ) -> tuple[list[tuple[float, Conv2dWorkload, FamilyConfig, str]], float]:
    """Each candidate's median time where it built and was correct, and cuDNN's."""
    from .layer import ConvKernel  # the layer needs this module's decision first

    built = cache.build_all([(wl, cfg) for wl, cfg, _ in pool], arch)
    trial = Trial.of(base, device.l2_bytes)
    relu = "relu" in base.epilogue
    sets = len(trial.xs)
    with cudnn_benchmark():
        cudnn_us = timer().time(cudnn_call(trial, relu), sets, TIMING)["median_us"]
    timed = []
    for (wl, cfg, why), path in zip(pool, built, strict=True):
        if isinstance(path, Exception):
            print(f"wino_tvm: {cfg.name(wl)} did not build: {path}", file=sys.stderr)
            continue
        kernel = ConvKernel(wl, cfg, arch, trial.w)
        out = kernel(trial.xs[0], trial.bias, trial.residuals[0]).float()
        rel, max_abs, nonfinite = errors(out, trial.reference)
        ok = nonfinite == 0 and rel <= rel_l2_tolerance(wl)
        us = timer().time(wino_call(kernel, trial), sets, TIMING)["median_us"]
        if record_to is not None:
            append_record(record_to, _record(wl, cfg, device.name, us, rel, max_abs, ok))
        if ok:
            timed.append((us, wl, cfg, why))
        else:
            print(f"wino_tvm: {cfg.name(wl)} is wrong on {wl.key} (rel L2 {rel:.2e}, "
                  f"{nonfinite} non-finite): left out", file=sys.stderr)
    return sorted(timed, key=lambda item: item[0]), cudnn_us


def pool(base: Conv2dWorkload, device: DeviceLimits, policy: Policy) -> list[Pick]:
    """What a decision times for base: the first candidate (verify, trust), or the best logged
    ones and every family's default (autotune)."""
    return _timed_first(candidates(base, device, policy), policy.mode)


def _timed_first(found: list[Pick], mode: str) -> list[Pick]:
    if mode != "autotune":
        return found[:1]
    logged = [item for item in found if item[2].startswith("tuning record")]
    return logged[:AUTOTUNE_LOGGED] + [item for item in found if item not in logged]


def second_try(found: list[Pick], tried: list[Pick]) -> list[Pick]:
    """verify's next candidate of `found` where its first, a tuning record, lost to cuDNN: the
    first family default not yet timed, so that a stale record (an older build's) does not
    hide it."""
    if not any(why.startswith("tuning record") for *_, why in tried):
        return []
    names = {cfg.name(wl) for wl, cfg, _ in tried}
    return [(wl, cfg, why) for wl, cfg, why in found
            if why.endswith(" default") and cfg.name(wl) not in names][:1]


def _wins(timed: list, cudnn_us: float) -> bool:
    return bool(timed) and cudnn_us / timed[0][0] >= MIN_SPEEDUP


def decide(base: Conv2dWorkload, device: DeviceLimits, arch: str, policy: Policy) -> Choice:
    """The layer's kernel: from the user cache, else chosen (and measured, unless the policy
    trusts the first candidate) and remembered."""
    store, key = ChoiceCache(device), choice_key(base, policy)
    known = store.get(key, base)
    if known is not None:
        return known
    found = candidates(base, device, policy)
    todo = _timed_first(found, policy.mode)
    if not todo:
        choice = Choice(base, None, f"cuDNN: {unsupported_reason(base, device, policy)}")
    elif policy.mode == "trust":
        wl, cfg, why = todo[0]
        choice = Choice(wl, cfg, why)
    else:
        timed, cudnn_us = measure(todo, base, device, arch, policy.record_to)
        retry = [] if _wins(timed, cudnn_us) or policy.mode != "verify" else second_try(
            found, todo)
        if retry:
            again = measure(retry, base, device, arch, policy.record_to)
            if _wins(*again):
                timed, cudnn_us = again
        if _wins(timed, cudnn_us):
            us, wl, cfg, why = timed[0]
            choice = Choice(wl, cfg, f"{why}; measured {us:.1f} us against cuDNN's "
                            f"{cudnn_us:.1f} us", cudnn_us / us)
        else:
            best = f"the best candidate {timed[0][0]:.1f} us" if timed else "no candidate ran"
            choice = Choice(base, None, f"cuDNN: {cudnn_us:.1f} us, {best}",
                            cudnn_us / timed[0][0] if timed else None)
    store.put(key, choice)
    return choice
