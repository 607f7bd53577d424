"""The config space of one workload on one device, pruned by the paper's section 4.3 rules.

Each rule is a named function (wl, cfg, device) -> reason | None, so a test (and `tune space`)
can show what each one refuses. TVM-free.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..config import (
    ELEMENT_BYTES,
    F23_STAGES,
    FRAGMENTS,
    FUSIONS,
    MAX_THREAD_REGISTERS,
    OT_CHANNELS,
    DeviceLimits,
    KernelConfig,
    artifact_name,
)
from ..workload import Conv2dWorkload, epilogue_text, parse_epilogue, supported_tile_sizes

# A thread has at most 255 registers; the A/B operand fragments, pointers and loop indices need
# about 60 of them, so accumulators beyond 192 (24 fp32 fragments) spill to local memory.
ACCUM_REGISTER_CAP = 192


@dataclass(frozen=True)
class Candidate:
    """One point of the space: the workload (with its tile size m) and the kernel config."""

    wl: Conv2dWorkload
    cfg: KernelConfig

    @property
    def name(self) -> str:
        """Folder name: '<workload key>-<config name>[-<epilogue ops>]' (config.artifact_name)."""
        return artifact_name(self.wl, self.cfg)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What a record of it is found by (Record.key)."""
        return self.wl.key, self.cfg.name(self.wl), epilogue_text(self.wl.epilogue), self.wl.out

    @classmethod
    def from_config_name(cls, shape: dict[str, int], config: str, epilogue: str = "",
                         out: str = "") -> Candidate:
        """Inverse of (wl.shape_dict(), cfg.name(wl), epilogue_text(wl.epilogue), wl.out): the
        config name carries dtype, accum, m; out "" is the dtype's default y."""
        meta, cfg = KernelConfig.parse(config)
        dims = {k.lower(): v for k, v in shape.items()}
        wl = Conv2dWorkload(**dims, dtype=meta["dtype"], m=meta["m"], accum=meta["accum"],
                            epilogue=parse_epilogue(epilogue), out=out)
        return cls(wl, cfg)


@dataclass(frozen=True)
class Axes:
    """The values each knob takes before pruning."""

    m: tuple[int, ...] = (2, 4)
    tb_m: tuple[int, ...] = (8, 16, 32, 64, 128)
    tb_n: tuple[int, ...] = (8, 16, 32, 64, 128)
    tb_k: tuple[int, ...] = (16, 32, 64, 128)
    fragments: tuple[tuple[int, int, int], ...] = FRAGMENTS
    fusions: tuple[str, ...] = FUSIONS
    # 16-byte copies are legal for every tb_k (a row is >= 16 bytes) and narrower ones only add
    # instructions, so vec is not tuned by default.
    vec: tuple[int, ...] = (16,)
    # The row offset changes which banks the WMMA loads of a fragment's rows hit.
    pad: tuple[int, ...] = (0, 16)
    # Stage U in shared memory, or load the B fragments from global memory (L2): more blocks
    # per SM against L2 latency; which wins depends on dtype and shape (docs/perf-notes.md).
    u_smem: tuple[bool, ...] = (True, False)
    # The full kernel with one channel chunk: U staged once per block, blocks loop over tiles
    # (KernelConfig.can_persist; elsewhere refused as illegal).
    persist: tuple[bool, ...] = (False, True)
    # Warp groups sharing U in a persistent block; more than one only with persist (refused
    # elsewhere), as many as the shared memory holds (shared_memory refuses the rest).
    groups: tuple[int, ...] = (1, 2, 3, 4)
    # Adjacent channels per OTrans thread: 2 vectorises its M loads and y stores, and can cost
    # a block per SM in registers (bench/results/h100/ot_pairs_ab/).
    ot_channels: tuple[int, ...] = OT_CHANNELS
    # Warp groups of a persistent m=2 block sharing each tile block, one channel block each
    # (refused elsewhere, and beyond the shared memory).
    k_split: tuple[int, ...] = (1, 2, 4)
    # Rounds of the full kernel's M staging (refused elsewhere): a 1 / m_rounds M slice. Four
    # rounds were never faster than two on the H100 (bench/results/h100/m_rounds_ab/).
    m_rounds: tuple[int, ...] = (1, 2)
    # Blocks per SM the full kernel's __launch_bounds__ asks for (0: none): fewer registers,
    # maybe spills. Off by default (the H100 A/Bs: bench/results/h100/m_rounds_ab/, min_blocks_ab/).
    min_blocks: tuple[int, ...] = (0,)
    # The lane-layout full kernel beside the WMMA ones (KernelConfig.lane; fp16, m=2): tb_n from
    # tb_n (channels per warp), k_split from k_split (warps per tile group), tile groups per
    # block from lane_groups, tb_k (channels per staged input chunk) from tb_k, patch buffers
    # from lane_stages, wgmma or mma.sync from lane_wgmma and TMA or cp.async patch copies from
    # lane_tma (both need an sm_90 GPU, so they are opt-in), warps per channel slice from
    # lane_tap_split, the tap split's exchange in memory of its own from lane_exchange_own
    # (opt-in; the rules refuse it without the split), the tile groups stacked on one patch
    # from lane_stack (opt-in; TMA and 4 groups only); the rest is fixed. Only where the fusions
    # include full (a full kernel).
    lane: tuple[bool, ...] = (False, True)
    lane_groups: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 10, 12)
    lane_stages: tuple[int, ...] = (2, 3)
    lane_wgmma: tuple[bool, ...] = (False,)
    lane_tma: tuple[bool, ...] = (False,)
    lane_tap_split: tuple[int, ...] = (1, 2)
    lane_exchange_own: tuple[bool, ...] = (False,)
    lane_stack: tuple[bool, ...] = (False,)
    # The F(2, 3) kernel (KernelConfig.f23; fp16 or int8 with fp32 accumulators, m=2, sm_90 GPUs, so
    # opt-in) with each of f23_stages input buffers per warpgroup, each of f23_c_split blocks
    # per cluster sharing the C loop, persistent blocks or not (f23_persist; the problems
    # refuse both at once), their stream-K schedule or not (f23_stream_k, persistent only),
    # compact GEMM rows or padded ones (f23_compact_rows) and rows in pairs or not
    # (f23_row_pairs); its tiles are fixed. Only where the fusions include full.
    f23: tuple[bool, ...] = (False,)
    f23_stages: tuple[int, ...] = F23_STAGES
    # (cs4 lost everywhere in tune_csplit/: not offered by default)
    f23_c_split: tuple[int, ...] = (1, 2)
    f23_persist: tuple[bool, ...] = (False, True)
    f23_stream_k: tuple[bool, ...] = (False, True)
    f23_compact_rows: tuple[bool, ...] = (False, True)
    f23_row_pairs: tuple[bool, ...] = (False, True)

    def configs(self) -> Iterator[KernelConfig]:
        for (tbm, tbn, tbk, frag, fusion, vec, pad, u_smem, persist, groups,
             ot_channels, k_split, m_rounds, min_blocks) in itertools.product(
            self.tb_m, self.tb_n, self.tb_k, self.fragments, self.fusions, self.vec, self.pad,
            self.u_smem, self.persist, self.groups, self.ot_channels, self.k_split,
            self.m_rounds, self.min_blocks,
        ):
            yield KernelConfig(tbm, tbn, tbk, *frag, fusion, vec, pad, u_smem, persist, groups,
                               ot_channels, k_split, m_rounds, min_blocks)
        if "full" not in self.fusions:
            return
        if True in self.f23:
            yield from itertools.starmap(KernelConfig.f23_config, itertools.product(
                self.f23_stages, self.f23_c_split, self.f23_persist, self.f23_stream_k,
                self.f23_compact_rows, self.f23_row_pairs))
        if True not in self.lane:
            return
        for (tbn, tbk, k_split, groups, stages, wgmma, tap_split, tma, exchange_own,
             stack) in itertools.product(
                self.tb_n, self.tb_k, self.k_split, self.lane_groups, self.lane_stages,
                self.lane_wgmma, self.lane_tap_split, self.lane_tma, self.lane_exchange_own,
                self.lane_stack):
            yield KernelConfig.lane_config(tbn, tbk, groups, k_split, stages, wgmma, tap_split,
                                           tma, exchange_own, stack)


DEFAULT_AXES = Axes()
Rule = Callable[[Conv2dWorkload, KernelConfig, DeviceLimits], str | None]


def wmma_divisibility(wl: Conv2dWorkload, cfg: KernelConfig, device: DeviceLimits) -> str | None:
    """WMMA shape, C/K/tile divisibility, vec, pad and persist legality (KernelConfig.problems)."""
    problems = cfg.problems(wl)
    return "; ".join(problems) if problems else None


def shared_memory(wl: Conv2dWorkload, cfg: KernelConfig, device: DeviceLimits) -> str | None:
    """The block's padded V and U slices must fit the opt-in shared memory per block."""
    smem = cfg.smem_bytes(wl)
    if smem > device.smem_per_block:
        return f"shared memory {smem} B > {device.smem_per_block} B per block"
    return None


def l2_residency(wl: Conv2dWorkload, cfg: KernelConfig, device: DeviceLimits) -> str | None:
    """llc only: the V slices of the resident blocks, Ve*alpha^2*TB_M*TB_K*min(N_TB, N_SM),
    must stay in L2 until the BGEMM reads them back."""
    if cfg.fusion != "llc":
        return None
    resident = min(cfg.blocks(wl), device.sms)
    need = ELEMENT_BYTES[wl.dtype] * wl.alpha**2 * cfg.tb_m * cfg.tb_k * resident
    if need > device.l2_bytes:
        return f"llc working set {need} B > L2 {device.l2_bytes} B"
    return None


def max_blocks(wl: Conv2dWorkload) -> int:
    """The most thread blocks any WMMA-legal tiling gives (one fragment per block)."""
    return max(
        (wl.ntiles_padded(fm) // fm * (wl.k // fn) for fm, fn, _ in FRAGMENTS if wl.k % fn == 0),
        default=0,
    )


def sm_fill(wl: Conv2dWorkload, cfg: KernelConfig, device: DeviceLimits) -> str | None:
    """N_TB >= N_SM, so that no SM idles; a workload too small for that with any tiling needs
    only as many blocks as its finest tiling gives (else its space would be empty). The F(2, 3)
    kernel has one tiling, so nothing finer to prefer (its 108 blocks at N=32 14^2 were its
    fastest against cuDNN: bench/results/h100/f23_wgmma/ run 9); more blocks through its C
    split are a tuned knob, a loss except where SMs idle (bench/results/h100/tune_csplit/)."""
    if cfg.f23:
        return None
    need = min(device.sms, max_blocks(wl))
    if cfg.blocks(wl) < need:
        return f"{cfg.blocks(wl)} thread blocks < {need} (SMs: {device.sms})"
    return None


def accumulator_registers(
    wl: Conv2dWorkload, cfg: KernelConfig, device: DeviceLimits
) -> str | None:
    """A warp keeps alpha*(tb_m/frag_m)*(tb_n/frag_n) accumulator fragments live (all alpha_h
    rows of its tap column); their registers must stay under ACCUM_REGISTER_CAP, less what a
    block of more than 256 threads (warp groups) takes from each thread's 255."""
    frags = cfg.accumulator_fragments(wl)
    regs = cfg.accumulator_registers(wl)
    cap = ACCUM_REGISTER_CAP - (MAX_THREAD_REGISTERS - cfg.thread_registers(wl))
    if regs > cap:
        return f"{frags} accumulator fragments = {regs} registers > {cap}"
    return None


# Order matters only for which reason a config is counted under (the first that refuses it);
# divisibility comes first because the other rules assume a legal tiling.
RULES: tuple[Rule, ...] = (
    wmma_divisibility, shared_memory, l2_residency, sm_fill, accumulator_registers,
)


def refusal(wl: Conv2dWorkload, cfg: KernelConfig, device: DeviceLimits) -> tuple[str, str] | None:
    """(rule name, reason) of the first rule that refuses cfg, or None when it is in the space."""
    for rule in RULES:
        reason = rule(wl, cfg, device)
        if reason is not None:
            return rule.__name__, reason
    return None


def tile_sizes(wl: Conv2dWorkload, axes: Axes) -> tuple[int, ...]:
    """The axes' m values wl's dtype and accumulator support (supported_tile_sizes)."""
    return tuple(m for m in axes.m if m in supported_tile_sizes(wl.dtype, wl.accum))


def config_space(
    wl: Conv2dWorkload, device: DeviceLimits, axes: Axes = DEFAULT_AXES
) -> tuple[list[Candidate], Counter[str]]:
    """Every candidate of wl's shape, dtype and accumulator (m from axes) the rules keep, and how
    many each rule refused."""
    kept: list[Candidate] = []
    refused: Counter[str] = Counter()
    for m in tile_sizes(wl, axes):
        wl_m = dataclasses.replace(wl, m=m)
        for cfg in axes.configs():
            verdict = refusal(wl_m, cfg, device)
            if verdict is None:
                kept.append(Candidate(wl_m, cfg))
            else:
                refused[verdict[0]] += 1
    return kept, refused
