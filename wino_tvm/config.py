"""Kernel configuration: the schedule knobs, their parseable name and their validity (TVM-free)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from functools import cache

from .errors import WinoError
from .workload import OUTPUTS, Conv2dWorkload

# WMMA shapes (M, N, K) that exist for both f16 and s8 operands.
FRAGMENTS = ((16, 16, 16), (32, 8, 16), (8, 32, 16))
# none: TVM's prototype untouched (the paper's "Tuned TVM"); syncfree: BGEMM barriers reduced to
# warp barriers; shmem / llc: ITrans+BGEMM fused through shared memory / L2 (PKF); full:
# ITrans+BGEMM+OTrans in one kernel, M staged through shared memory (beyond the paper).
FUSIONS = ("none", "syncfree", "shmem", "llc", "full")
ACCUMULATOR_BYTES = {"fp32": 4, "fp16": 2, "int32": 4}
ELEMENT_BYTES = {"fp16": 2, "int8": 1}
WARP_SIZE = 32
# Rows of the staged M slice in the full kernel are padded by 8 accumulator elements where that
# costs no shared memory beyond the V/U staging the slice reuses. The accumulators' shared stores
# write 4 rows per 128-byte phase (8-byte stores of fp32/int32, 16 lanes) or 8 rows (4-byte
# stores of fp16 pairs); a row stride of 8 (mod 32) banks, resp. 4 (mod 8), puts those rows on
# disjoint banks. The 16-byte V/U pad leaves fp32 rows 4 banks apart: 2-way conflicts, 8.9 M of
# the kernel's 23.7 M shared-store wavefronts at 960^2 (ncu, perf-notes). Where the wider rows
# would grow the block they can cost a resident block per SM (int8 N=128 56^2, 32/32/64: 72 ->
# 80 KB, 3 -> 2 blocks, 0.61x on the H100, bench/results/h100/pad_unroll_ab/), so they are used
# where they fit in that memory or, not persistent, keep both the blocks per SM and the shared
# memory carveout (bench/results/h100/m_rows_ab/: int8 16/64 with U from L2, 68 -> 72 KB, 3
# blocks in the 228 KB carveout either way, 1.05-1.10x; int8 m=4 32/32/32, 162 -> 180 KB, one
# block but the 196 KB carveout instead of 164 KB, so 32 KB less L1: 0.94-1.01x).
M_ROW_PAD = 8
# sm_90 (H100, H200), the tuned target: shared memory per SM, reserved per resident block, and
# the carveouts the driver can pick (the rest of the SM's 256 KB is L1 cache).
SHARED_PER_SM = 228 * 1024
SHARED_RESERVED_PER_BLOCK = 1024
SHARED_CARVEOUTS = tuple(kb * 1024 for kb in (0, 8, 16, 32, 64, 100, 132, 164, 196, 228))


def shared_residency(block_bytes: int) -> tuple[int, int]:
    """(blocks per SM, carveout in bytes) shared memory gives blocks of block_bytes on sm_90."""
    per_block = block_bytes + SHARED_RESERVED_PER_BLOCK
    blocks = SHARED_PER_SM // per_block
    return blocks, next(c for c in SHARED_CARVEOUTS if c >= blocks * per_block)


def shared_wavefronts(lane_offsets: list[int], access_bytes: int) -> int:
    """Wavefronts of one warp's shared-memory access at these byte offsets: lanes in phases of
    128 bytes, each phase as many as the most distinct 4-byte words one of the 32 banks serves."""
    phase = min(WARP_SIZE, 128 // access_bytes)
    total = 0
    for start in range(0, len(lane_offsets), phase):
        bank_words: dict[int, set[int]] = {}
        for offset in lane_offsets[start:start + phase]:
            for word in range(offset // 4, (offset + access_bytes - 1) // 4 + 1):
                bank_words.setdefault(word % 32, set()).add(word)
        total += max(len(words) for words in bank_words.values())
    return total


OT_CHANNELS = (1, 2)
# Rounds in which the full kernel stages and transforms its M slice (tb_n / rounds channels each).
M_ROUNDS = (1, 2, 4)
ASYNC_U_MIN_TB_M = 32
FRAGMENT_ELEMENTS_PER_LANE = 8  # a 16x16 (or 32x8, 8x32) WMMA fragment over 32 lanes
MAX_THREAD_REGISTERS = 255
REGISTER_FILE = 65536  # 32-bit registers a block may use, sm_70 .. sm_90
MAX_SM_THREADS = 2048  # resident threads per SM, sm_80 .. sm_90
# Bytes of one input load per ITrans thread (fp16: 8 channels, int8: 4) and pixels of an m=2
# input tile: a whole-tile trip holds ITRANS_LOAD_BYTES x 16 bytes per thread.
ITRANS_LOAD_BYTES = {"fp16": 16, "int8": 4}
M2_TILE_PIXELS = 16
# The input pipeline keeps a warp's tile arrays live through the MMA and OTrans, next to the
# accumulators; what the rest of the kernel needs besides them. On the H100 (nvcc 13) the
# kernels with tiles + accumulators <= the per-thread registers - 32 kept from spilling and
# gained 1.04-1.36x; the 4-group fp32 16/32 (128 of 128) and one-group fp16 32/64 (256 of 255)
# kernels spilled and lost 0.88-0.95x (bench/results/h100/round_pipeline_ab/).
PIPELINE_REGISTER_HEADROOM = 32
# The lane-layout full kernel (templates/lane_layout.cu, wino_tvm/lane.py): mma.sync m16n8k16,
# a warp's 16 tiles (the MMA's M) x tb_n output channels for all 16 taps of F(2x2, 3x3).
LANE_FRAGMENT = (16, 8, 16)
LANE_TILES = 16
# Output channels per warp with all 16 taps (times tap_split with a share of them): the
# accumulators take 128 registers at most.
LANE_WARP_CHANNELS = {"fp16": (16, 32), "fp32": (16,)}
# Warps sharing a tile group's channel slice, one share of the tap rows each.
LANE_TAP_SPLITS = (1, 2)
# Registers a lane-kernel thread needs beside its accumulators (ptxas, nvcc 13: 212 with 128
# accumulator registers, 140-142 with 64): a block gets as many warps as the register file
# holds at that count.
LANE_OTHER_REGISTERS = 84
# With wgmma (nvcc 13: 228 with 128 accumulator registers and one channel slice, 245 with two):
# all 16 taps' A registers stay live until the step's MMAs are done.
LANE_OTHER_REGISTERS_WGMMA = 100
LANE_PATCH_PIXELS = 6 * 18  # a tile group's input: 2 x 8 tiles of 4 x 4 pixels
# Stacked lane kernels: the block's LANE_WARPGROUP_GROUPS tile groups one above the other, 8 x 8
# tiles (16 x 16 output pixels) sharing one 18 x 18 patch.
LANE_STACK_PIXELS = 18 * 18
LANE_STACK_OUTPUT = 16
# Channels per staged patch chunk: whole 16-channel MMA steps, at most 16 pieces of 16 bytes per
# pixel so that one warp's pass copies whole pixels.
LANE_CHUNK_CHANNELS = (16, 32, 64, 128)
LANE_STAGES = (2, 3, 4)
# wgmma lane kernels: a warpgroup (4 warps, M = 64 tiles) is 4 tile groups of one channel slice.
LANE_WARPGROUP_GROUPS = 4
# GPU code for wgmma and TMA needs the arch-specific target; it runs on sm_90 GPUs only.
WGMMA_ARCH = "sm_90a"
# The F(2, 3) kernel (templates/f23_wgmma.cu, wino_tvm/f23.py): Winograd along w only, a block
# of 128 flat tile rows (two warpgroups of m64) x 64 output channels, C in 16-channel chunks,
# wgmma m64n64k16 with V in registers and U in shared memory. Fixed knobs: (tb_m, tb_n, tb_k),
# the fragment (the wgmma shape); tuned: the depth of each warpgroup's input ring (stages), the
# C split (c_split), persistent blocks (persist) and their stream-K schedule (stream_k).
F23_M = 2  # output pixels per tile, along w
# (dtype, accumulator) pairs the kernel takes: fp16, and int8 on the fp16 MMA (V and U of int8
# data are exact in fp16; docs/int8.md) into the same fp32 accumulators.
F23_PRECISIONS = (("fp16", "fp32"), ("int8", "fp32"))
F23_TILES = (128, 64, 16)
F23_FRAGMENT = (64, 64, 16)
F23_STAGES = (3, 4)
# Blocks of a cluster splitting the C loop (each finishes 4 / c_split of its outputs' slots).
F23_C_SPLITS = (1, 2, 4)
F23_WARPGROUP_ROWS = 64
F23_TAPS = 4  # V_j, j = 0..3: the accumulator sets
F23_U_STAGES = 4  # U's ring of bulk copies
# Stream-K: the most blocks a launch takes (one slot of partial sums each); sm_90 parts have at
# most 132 SMs and one F(2, 3) block fits an SM.
F23_SK_MAX_BLOCKS = 144
F23_SK_THREAD_FLOATS = 64  # a thread's partial sums after OTrans: 4 output slots x 16 channels
# The kernel's offsets into x are 32-bit.
F23_MAX_ELEMENTS = 2**31 - 1
# TMA lane kernels: patch buffers start on 128-byte boundaries (a cp.async.bulk.tensor
# destination), and each has an 8-byte mbarrier.
LANE_TMA_ALIGN = 128
LANE_MBARRIER_BYTES = 8


SHMEM_ALIGN = 128  # bytes; WMMA pointers need 32, and a warp group's slice starts a fresh line


def shmem_aligned(size: int) -> int:
    return -(-size // SHMEM_ALIGN) * SHMEM_ALIGN


@dataclass(frozen=True)
class DeviceLimits:
    """What a config must fit: SM count, shared memory per block (opt-in) and L2 size."""

    name: str
    sms: int
    smem_per_block: int
    l2_bytes: int


# Datasheet values; the tuner reads the real ones from the GPU when one is present.
KNOWN_DEVICES = {
    "h100": DeviceLimits("NVIDIA H100", 132, 227 * 1024, 50 * 1024 * 1024),
    "h200": DeviceLimits("NVIDIA H200", 132, 227 * 1024, 60 * 1024 * 1024),
    "a100": DeviceLimits("NVIDIA A100", 108, 163 * 1024, 40 * 1024 * 1024),
    "rtx2080ti": DeviceLimits("NVIDIA GeForce RTX 2080 Ti", 68, 64 * 1024, 5632 * 1024),
}


@dataclass(frozen=True)
class KernelConfig:
    """Schedule knobs of the Tensor Core Winograd kernels (TB_* in the paper's notation)."""

    tb_m: int = 16  # Winograd tiles per thread block
    tb_n: int = 16  # output channels per thread block
    tb_k: int = 16  # input channels per step of the reduction loop
    frag_m: int = 16
    frag_n: int = 16
    frag_k: int = 16
    fusion: str = "none"
    vec: int = 16  # bytes per vectorised copy lane
    pad: int = 16  # bytes of padding per shared-memory row (bank-conflict offset)
    u_smem: bool = True  # stage U in shared memory; False: B fragments load from global (L2)
    persist: bool = False  # full kernel: stage U once, loop over tile blocks (can_persist())
    groups: int = 1  # persistent kernel: warp groups per block sharing U, each with its own V/M
    ot_channels: int = 1  # adjacent output channels per OTrans thread (2: vectorised M and y)
    # persistent kernel: warp groups per block sharing each tile block (its V), group z taking
    # channel block z of k_split adjacent ones, each with its own U and M slices
    k_split: int = 1
    # full kernel: M staged and transformed in this many rounds of tb_n / m_rounds channels, so
    # that the slice (int32/fp32: the block's largest buffer) takes 1 / m_rounds of the memory
    m_rounds: int = 1
    # full kernel: blocks per SM its __launch_bounds__ asks ptxas to fit in registers (0: none)
    min_blocks: int = 0
    # full kernel in the MMA's lane layout (templates/lane_layout.cu, not a TVM prototype): then
    # tb_m = 16 tiles per warp, tb_n = output channels per warp, tb_k = input channels per
    # staged patch chunk, k_split = warps sharing a tile group, groups = tile groups per block
    lane: bool = False
    # lane kernel: patch buffers per tile group (chunks stage stages - 1 ahead)
    stages: int = 2
    # lane kernel: wgmma (sm_90a; a warpgroup's four tile groups share each B read) for mma.sync
    wgmma: bool = False
    # lane kernel: warps per channel slice of a tile group, each with 1 / tap_split of the tap
    # rows for tap_split x the channels (each tile's input transformed tap_split x less often)
    tap_split: int = 1
    # lane kernel: each patch chunk staged by one TMA copy (sm_90a) instead of per-thread cp.async
    tma: bool = False
    # lane kernel with the tap split: both tiles' OTrans exchange in shared memory of its own
    # (one group barrier) instead of tile 1's in the last patch buffer (two); costs
    # lane_exchange_tiles more memory
    exchange_own: bool = False
    # lane kernel with TMA and 4 tile groups: the groups stacked one above the other on one
    # shared patch per chunk (1.27x the output's pixels copied instead of 1.69x), the chunk's
    # barrier the block's, the tap split's exchange in memory of its own
    stack: bool = False
    # the F(2, 3) kernel (templates/f23_wgmma.cu, not a TVM prototype): Winograd along w only,
    # wgmma with V in registers (sm_90a); tb_m, tb_n, tb_k and the fragment fixed (F23_TILES,
    # F23_FRAGMENT), stages = each warpgroup's input buffers, persist = resident blocks looping
    # over the tiles
    f23: bool = False
    # F(2, 3) kernel: a cluster of c_split blocks shares each block's outputs, each taking
    # 1 / c_split of the C loop (more blocks where one per 128 rows x 64 channels leaves SMs idle)
    c_split: int = 1
    # F(2, 3) kernel with persist: each block takes a contiguous share of all tiles' chunks
    # (stream-K), a tile split between blocks finished through a global workspace
    stream_k: bool = False
    # F(2, 3) kernel: GEMM rows of each image's H rows of tiles only (compact), instead of H + 1
    # with a garbage row over the zero row between images (1 / (H + 1) fewer MMAs; the patch is
    # staged in padded order either way)
    compact_rows: bool = False
    # F(2, 3) kernel: each lane's two A rows are a pair of tiles one row of tiles apart, so one V
    # row serves both (4 V rows a chunk instead of 6; the patch spans whole pairs of rows)
    row_pairs: bool = False

    @classmethod
    def lane_config(cls, tb_n: int, tb_k: int, groups: int = 1, k_split: int = 1,
                    stages: int = 2, wgmma: bool = False, tap_split: int = 1,
                    tma: bool = False, exchange_own: bool = False,
                    stack: bool = False) -> KernelConfig:
        """A lane-layout config: these knobs, the fixed ones (16 tiles per warp, the m16n8k16
        fragment, full fusion, persistent blocks) and the rest at their defaults."""
        return cls(LANE_TILES, tb_n, tb_k, *LANE_FRAGMENT, "full", persist=True, groups=groups,
                   k_split=k_split, lane=True, stages=stages, wgmma=wgmma, tap_split=tap_split,
                   tma=tma, exchange_own=exchange_own, stack=stack)

    @classmethod
    def f23_config(cls, stages: int, c_split: int = 1, persist: bool = False,
                   stream_k: bool = False, compact_rows: bool = False,
                   row_pairs: bool = False) -> KernelConfig:
        """An F(2, 3) config: its input ring's depth, its C split, persistent blocks or not and
        their stream-K schedule, its GEMM rows' layout and pairing, the fixed knobs (F23_TILES,
        F23_FRAGMENT, full fusion) and the rest at their defaults."""
        return cls(*F23_TILES, *F23_FRAGMENT, "full", persist=persist, stages=stages, f23=True,
                   c_split=c_split, stream_k=stream_k, compact_rows=compact_rows,
                   row_pairs=row_pairs)

    def lane_only_knobs(self) -> list[str]:
        """The lane kernel's own knobs (LANE_ONLY_KNOBS) this config sets off their defaults."""
        return [knob for knob in LANE_ONLY_KNOBS if getattr(self, knob) != _DEFAULTS[knob]]

    def f23_only_knobs(self) -> list[str]:
        """The F(2, 3) kernel's own knobs (F23_ONLY_KNOBS) this config sets off their defaults."""
        return [knob for knob in F23_ONLY_KNOBS if getattr(self, knob) != _DEFAULTS[knob]]

    @property
    def needs_sm90a(self) -> bool:
        """Uses sm_90a instructions (wgmma, TMA): compiled for WGMMA_ARCH, runs on sm_90 GPUs."""
        return self.wgmma or self.tma or self.f23

    @property
    def fragment(self) -> tuple[int, int, int]:
        return self.frag_m, self.frag_n, self.frag_k

    def name(self, wl: Conv2dWorkload) -> str:
        """Parseable name encoding the precision and every knob, e.g. fp16-fp32-m4-tbm16-..."""
        return "-".join([wl.dtype, wl.accum, f"m{wl.m}", *self._tokens()])

    def _tokens(self) -> list[str]:
        """name() after the precision: the seven fixed knobs, then the optional ones."""
        return [
            f"tbm{self.tb_m}",
            f"tbn{self.tb_n}",
            f"tbk{self.tb_k}",
            f"frag{self.frag_m}x{self.frag_n}x{self.frag_k}",
            self.fusion,
            f"vec{self.vec}",
            f"pad{self.pad}",
            *([] if self.u_smem else ["ul2"]),
            *(["pb"] if self.persist else []),
            *(["lane"] if self.lane else []),
            *(["wg"] if self.wgmma else []),
            *(["tma"] if self.tma else []),
            *(["xown"] if self.exchange_own else []),
            *(["stack"] if self.stack else []),
            *(["f23"] if self.f23 else []),
            *(["sk"] if self.stream_k else []),
            *(["cr"] if self.compact_rows else []),
            *(["rp"] if self.row_pairs else []),
            *(f"{prefix}{getattr(self, knob)}" for prefix, knob in COUNTED_TOKENS.items()
              if getattr(self, knob) != _DEFAULTS[knob]),
        ]

    @classmethod
    def parse(cls, name: str) -> tuple[dict, KernelConfig]:
        """Inverse of name(): ({'dtype', 'accum', 'm'}, config)."""
        parts = name.split("-")
        try:
            dtype, accum, m, tbm, tbn, tbk, frag, fusion, vec, pad = parts[:10]
            fm, fn, fk = (int(v) for v in frag.removeprefix("frag").split("x"))
            # Optional tokens after the ten fixed ones: ul2, pb, lane, wg, tma, xown, stack, f23,
            # sk, cr, rp, then COUNTED_TOKENS (numbers other than the defaults); name() must give
            # back the same text.
            knobs: dict = {"u_smem": True, "persist": False, "lane": False, "wgmma": False,
                           "tma": False, "exchange_own": False, "stack": False, "f23": False,
                           "stream_k": False, "compact_rows": False, "row_pairs": False}
            flags = {"pb": "persist", "lane": "lane", "wg": "wgmma", "tma": "tma",
                     "xown": "exchange_own", "stack": "stack", "f23": "f23", "sk": "stream_k",
                     "cr": "compact_rows", "rp": "row_pairs"}
            for token in parts[10:]:
                if token == "ul2":
                    knobs["u_smem"] = False
                elif token in flags:
                    knobs[flags[token]] = True
                else:
                    prefix = token.rstrip("0123456789")
                    knobs[COUNTED_TOKENS[prefix]] = int(token.removeprefix(prefix))
            cfg = cls(int(tbm.removeprefix("tbm")), int(tbn.removeprefix("tbn")),
                      int(tbk.removeprefix("tbk")), fm, fn, fk, fusion,
                      int(vec.removeprefix("vec")), int(pad.removeprefix("pad")), **knobs)
            # The grammar: g<N> or ks<N> (not both, but for lane) only after pb, pb not with ul2,
            # lane only after pb, ts<N>, wg, tma, xown and stack only with lane, st<N> with lane
            # or f23, f23 alone with st<N>, cs<N> and pb (not both), cs<N> only with f23, sk
            # only with f23 and pb, cr and rp only with f23.
            split = cfg.groups != 1 or cfg.k_split != 1
            others = [k for k in cfg.lane_only_knobs() if k != "stages"]
            if (cfg._tokens() != parts[3:] or (split and not cfg.persist)
                    or (cfg.groups != 1 and cfg.k_split != 1 and not cfg.lane)
                    or (cfg.lane_only_knobs() and not (cfg.lane or cfg.f23))
                    or (cfg.f23 and (cfg.lane or others or (cfg.persist and cfg.c_split != 1)))
                    or (cfg.f23_only_knobs() and not cfg.f23)
                    or (cfg.stream_k and not cfg.persist)
                    or (cfg.persist and not cfg.u_smem) or (cfg.lane and not cfg.persist)):
                raise ValueError(name)
        except (ValueError, KeyError):
            raise WinoError(f"{name!r} is not a wino-tvm config name") from None
        return {"dtype": dtype, "accum": accum, "m": int(m.removeprefix("m"))}, cfg

    def with_(self, **changes) -> KernelConfig:
        return KernelConfig(**{**asdict(self), **changes})

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def async_u(self) -> bool:
        """Whether the full kernel stages U with cp.async ahead of ITrans (reconstructor.
        async_copy). On the H100 (bench/results/h100/async_u_ab/, 76 pairs) that was 0.95-1.37x
        with tb_m = 32 (32/32/32 fp32 accumulators 1.03-1.37x) but 0.73-0.90x with 16-tile
        blocks and tb_k = 64 (not profiled), so only from 32 tiles per block."""
        return self.tb_m >= ASYNC_U_MIN_TB_M

    def accumulator_fragments(self, wl: Conv2dWorkload) -> int:
        """A warp's accumulator fragments: all alpha tap rows of its tap column."""
        return wl.alpha * (self.tb_m // self.frag_m) * (self.tb_n // self.frag_n)

    def accumulator_registers(self, wl: Conv2dWorkload) -> int:
        """Registers per thread of a warp's accumulator fragments."""
        if self.f23:  # F23_TAPS sets of a warpgroup's m64 x tb_n over its threads, 4 B each
            warpgroup_threads = self.threads(wl) * F23_WARPGROUP_ROWS // self.tb_m
            return (F23_TAPS * F23_WARPGROUP_ROWS * self.tb_n * ACCUMULATOR_BYTES[wl.accum]
                    // warpgroup_threads // 4)
        if self.lane:  # 16 / tap_split taps x tb_n / 8 n8 blocks, 4 elements of each per lane
            return (wl.alpha * wl.alpha // self.tap_split * self.tb_n // 8 * 4
                    * ACCUMULATOR_BYTES[wl.accum] // 4)
        return (self.accumulator_fragments(wl) * FRAGMENT_ELEMENTS_PER_LANE
                * ACCUMULATOR_BYTES[wl.accum] // 4)

    def thread_registers(self, wl: Conv2dWorkload) -> int:
        """Registers each thread may use with one block per SM."""
        return min(MAX_THREAD_REGISTERS, REGISTER_FILE // self.threads(wl))

    def pipelines_input(self, wl: Conv2dWorkload) -> bool:
        """Whether the persistent m=2 kernel loads the next tile block's input tiles before
        the MMA (reconstructor.input_pipeline, where ITrans takes whole tiles): where a warp's
        tile arrays and accumulators leave PIPELINE_REGISTER_HEADROOM registers per thread."""
        if not (self.persist and wl.m == 2):
            return False
        channels = ITRANS_LOAD_BYTES[wl.dtype] // ELEMENT_BYTES[wl.dtype]
        trips = self.tb_m * self.tb_k // (WARP_SIZE * channels)
        rounds = -(-trips // (wl.alpha * self.k_split))
        tile_registers = rounds * M2_TILE_PIXELS * ITRANS_LOAD_BYTES[wl.dtype] // 4
        return (tile_registers + self.accumulator_registers(wl)
                <= self.thread_registers(wl) - PIPELINE_REGISTER_HEADROOM)

    def can_persist(self, wl: Conv2dWorkload) -> bool:
        """Whether the persistent full kernel applies: one channel chunk and U staged in shared
        memory (staged once per block), the M slice within the V staging (U stays intact)."""
        # TVM lays the smaller staging buffer out first: U before V when tb_n < tb_m, and the M
        # slice (from byte 0) would then overwrite U (reconstructor.persist checks the layout).
        return (self.fusion == "full" and self.u_smem and self.tb_k == wl.c
                and self.tb_n >= self.tb_m
                and self._m_bytes(wl, self._narrow_m_row(wl)) <= self._v_bytes(wl))

    def smem_bytes(self, wl: Conv2dWorkload) -> int:
        """Dynamic shared memory of the BGEMM (or fused) block: padded V and U slices; for full
        fusion at least the padded M slice, which reuses that memory after the channel loop;
        one more V slice per further warp group; with a channel split, V or every group's M
        slice (whichever is larger), then every group's U slice (reconstructor.persist)."""
        if self.lane:
            return self.lane_smem_bytes(wl)
        if self.f23:
            return self.f23_smem_bytes(wl)
        operands = self._staging_bytes(wl)
        if self.fusion != "full":
            return operands
        m_slice = self._m_bytes(wl, self.m_row_elems(wl))
        if self.k_split != 1:
            u_slice = operands - self._v_bytes(wl)
            below_u = max(self._v_bytes(wl), self.k_split * shmem_aligned(m_slice))
            return shmem_aligned(below_u) + self.k_split * u_slice
        return max(operands, m_slice)

    def threads(self, wl: Conv2dWorkload) -> int:
        """Threads per block: a warp per tap column, per warp group (lane: a warp per channel
        slice and share of the taps, per tile group; f23: a warpgroup per 64 rows)."""
        if self.f23:  # a warpgroup of 4 warps per 64 rows
            return 4 * WARP_SIZE * self.tb_m // F23_WARPGROUP_ROWS
        per_group = self.k_split * self.tap_split if self.lane else wl.alpha * self.k_split
        return WARP_SIZE * per_group * self.groups

    def f23_rows(self, wl: Conv2dWorkload) -> int:
        """The F(2, 3) kernel's GEMM rows: N H ceil(W / 2) tiles of 2 output pixels with
        compact_rows, else N (H + 1) ceil(W / 2), each image's last row of tiles garbage over
        the zero row between images; with row_pairs rounded up to whole pairs of rows."""
        tile_rows = wl.n * (wl.h if self.compact_rows else wl.h + 1)
        if self.row_pairs:
            tile_rows += tile_rows % 2
        return tile_rows * -(-wl.w // 2)

    def f23_smem_bytes(self, wl: Conv2dWorkload) -> int:
        """The F(2, 3) kernel's shared memory (templates/f23_wgmma.cu's kSmemBytes, which it
        static_asserts): U's ring of F23_U_STAGES chunks (12 slices of 16 x tb_n), per warpgroup
        `stages` input patches (the padded input rows, a zero row before each image, that its
        64 GEMM rows and the 2 filter rows below reach, each 2T + 2 pixels of 24 halves, or 16
        bytes of int8, and f23_row_pad_bytes; V itself goes from the patch into wgmma's A
        registers), and the U ring's two mbarriers a stage."""
        tiles = -(-wl.w // 2)
        pairs = F23_WARPGROUP_ROWS // 2  # with row_pairs: from a multiple of 32
        span = (2 * max((first % tiles + pairs - 1) // tiles
                        for first in range(0, pairs * tiles, pairs)) + 1 if self.row_pairs
                else (F23_WARPGROUP_ROWS - 1 + tiles - 1) // tiles)
        if self.compact_rows:  # up to `span` + 1 output rows and the zero rows between them
            rows = span + (wl.h - 1 + span) // wl.h + 3
        elif self.row_pairs:  # the pairs' rows are the padded rows
            rows = span + 3
        else:
            rows = (F23_WARPGROUP_ROWS + 2 * tiles - 1) // tiles + 2
        pixel = self.tb_k if wl.dtype == "int8" else 2 * (self.tb_k + 8)
        patch = rows * ((2 * tiles + 2) * pixel + self.f23_row_pad_bytes(wl))
        group = self.stages * shmem_aligned(patch)
        u_chunk = 12 * self.tb_k * self.tb_n * 2
        warpgroups = self.tb_m // F23_WARPGROUP_ROWS
        return F23_U_STAGES * u_chunk + warpgroups * group + 2 * F23_U_STAGES * LANE_MBARRIER_BYTES

    def f23_row_pad_bytes(self, wl: Conv2dWorkload) -> int:
        """Bytes after each row of the F(2, 3) kernel's staged patch, so that a warp's loads
        stay on distinct banks where its tiles cross into the next row (with row_pairs, two)."""
        tiles = -(-wl.w // 2)
        if wl.dtype == "int8":
            return _int8_patch_pad(self.f23_rows(wl), wl.h, tiles, self.compact_rows,
                                   self.row_pairs)
        # fp16, 8-byte loads, a half-warp's 4 tiles at a time: crossing a row skips its 2 halo
        # pixels (24 words), which lands one load on a bank another already reads (1.43x the
        # shared load wavefronts at W = 14, 1.14x at 28); 8 more words a row keep the banks in
        # step, and with T % 4 == 0 no half-warp crosses. With row pairs the tiles cross two
        # rows: the pad makes that jump 24 T words mod 32, as if the row went on.
        if self.row_pairs:
            return 4 * ((16 - (12 * tiles + 8) % 16) % 16)
        return 0 if tiles % 4 == 0 else 32

    def f23_grid(self, wl: Conv2dWorkload) -> tuple[int, int, int]:
        """The F(2, 3) kernel's grid: blocks along K (x), blocks of tb_m rows (y), the C split's
        cluster (z); persistent: every tile along x (the launch takes the resident blocks);
        stream-K: up to a block per 16-channel chunk of all tiles, at most F23_SK_MAX_BLOCKS."""
        grid = wl.k // self.tb_n, -(-self.f23_rows(wl) // self.tb_m), self.c_split
        tiles = grid[0] * grid[1]
        if self.stream_k:
            return min(tiles * wl.c // self.tb_k, F23_SK_MAX_BLOCKS), 1, 1
        return (tiles, 1, 1) if self.persist else grid

    def _f23_problems(self, wl: Conv2dWorkload) -> list[str]:
        """Every reason the F(2, 3) kernel cannot run this workload (empty when it can)."""
        out = []
        if (wl.dtype, wl.accum) not in F23_PRECISIONS:
            out.append(f"f23 takes fp16 or int8 with fp32 accumulators, not {wl.dtype} with "
                       f"{wl.accum} (--accum fp32), or drop f23")
        if wl.m != F23_M:
            out.append(f"f23 computes {F23_M} output pixels per tile (m={F23_M}), not m={wl.m}")
        if self != KernelConfig.f23_config(self.stages, self.c_split, self.persist,
                                           self.stream_k, self.compact_rows, self.row_pairs):
            out.append(f"f23 takes tb_m, tb_n, tb_k = {', '.join(map(str, F23_TILES))}, frag "
                       f"{'x'.join(map(str, F23_FRAGMENT))}, fusion full and no other knobs "
                       "but stages, c_split, persist, stream_k, compact_rows and row_pairs")
        if self.persist and self.c_split != 1:
            out.append(f"f23: persistent blocks (pb) do not split C (c_split={self.c_split}): "
                       "drop one")
        if self.stream_k and not self.persist:
            out.append("f23: stream-K (sk) is a schedule of persistent blocks: add persist (pb)")
        if self.stages not in F23_STAGES:
            out.append(f"f23: stages={self.stages} input buffers per warpgroup; one of "
                       f"{F23_STAGES}")
        if self.row_pairs and self.compact_rows and wl.h % 2:
            out.append(f"f23: row pairs (rp) of compact rows (cr) pair the rows of an image, "
                       f"H={wl.h} is odd: drop one (padded rows pair across images)")
        if wl.c % F23_TILES[2] or wl.k % F23_TILES[1]:
            out.append(f"f23: C={wl.c} must be a multiple of {F23_TILES[2]} and K={wl.k} of "
                       f"{F23_TILES[1]}")
        elif wl.c // F23_TILES[2] % self.c_split:
            out.append(f"f23: c_split={self.c_split} must divide C={wl.c}'s "
                       f"{wl.c // F23_TILES[2]} chunks of {F23_TILES[2]} channels")
        if self.c_split not in F23_C_SPLITS:
            out.append(f"f23: c_split={self.c_split} blocks per cluster; one of {F23_C_SPLITS}")
        if max(wl.c, wl.k) * wl.n * wl.h * wl.w > F23_MAX_ELEMENTS:
            out.append(f"f23: x and y must have fewer than 2^31 elements (32-bit offsets): "
                       f"split the batch N={wl.n}")
        return out

    def lane_smem_bytes(self, wl: Conv2dWorkload) -> int:
        """The lane kernel's shared memory: U's rows for the block's tb_n x k_split channels
        (C + 8 halves: conflict-free ldmatrix; C in wgmma's core matrices), per tile group
        `stages` patch buffers of tb_k channels (+ 8 halves: conflict-free 8-byte reads), with
        the tap split the exchange's own memory (lane_exchange_tiles), with TMA an mbarrier per
        buffer; stacked, one set of patch buffers for the block."""
        u_rows = wl.alpha * wl.alpha * self.tb_n * self.k_split
        u_bytes = ELEMENT_BYTES["fp16"] * u_rows * (wl.c + (0 if self.wgmma else 8))
        rings = self._lane_units()
        return (u_bytes + rings * self.stages * self._lane_patch_bytes(wl)
                + self.groups * self.lane_exchange_tiles(wl) * self._lane_exchange_bytes(wl)
                + (rings * self.stages * LANE_MBARRIER_BYTES if self.tma else 0))

    def _lane_units(self) -> int:
        """The lane block's units of work, each with its ring of patch buffers: its tile
        groups, or stacked one."""
        return 1 if self.stack else self.groups

    def lane_pixel_pad(self, wl: Conv2dWorkload) -> int:
        """Elements after a patch pixel's tb_k channels: the fewest 16-byte units that make the
        pixel an odd number of them (a warp's patch reads then take 2 wavefronts, the fewest)."""
        element = ELEMENT_BYTES[wl.dtype]
        units = -(-self.tb_k * element // 16) + 1
        return (units + 1 - units % 2) * 16 // element - self.tb_k

    def _lane_patch_bytes(self, wl: Conv2dWorkload) -> int:
        """One patch buffer of the lane kernel: the tile group's (stacked: the block's) pixels x
        (tb_k + lane_pixel_pad) elements (with TMA rounded up to LANE_TMA_ALIGN)."""
        pixels = LANE_STACK_PIXELS if self.stack else LANE_PATCH_PIXELS
        raw = ELEMENT_BYTES[wl.dtype] * pixels * (self.tb_k + self.lane_pixel_pad(wl))
        return -(-raw // LANE_TMA_ALIGN) * LANE_TMA_ALIGN if self.tma else raw

    def _lane_exchange_bytes(self, wl: Conv2dWorkload) -> int:
        """The tap split's words per tile group and tile: each lane's partial output row for
        the other warp (2 pixels x tb_n channels, half of them, in accumulator bytes)."""
        group_threads = WARP_SIZE * self.k_split * self.tap_split
        return group_threads * self.tb_n * ACCUMULATOR_BYTES[wl.accum] // 2

    def lane_exchange_tiles(self, wl: Conv2dWorkload) -> int:
        """Tiles of the tap split's exchange in memory of its own: none without the split, one
        where the group's words for the other tile fit its last patch buffer and exchange_own
        and stack are off, else two (a stacked block's patch buffer is the block's, free for
        the exchange only after all its warps are done with it)."""
        if self.tap_split == 1:
            return 0
        if self.exchange_own or self.stack:
            return 2
        return 1 if self._lane_exchange_bytes(wl) <= self._lane_patch_bytes(wl) else 2

    def lane_tile_groups(self, wl: Conv2dWorkload) -> int:
        """The lane kernel's units of work: 2 x 8 tiles (4 x 16 output pixels) of one image;
        stacked, the block's: 8 x 8 tiles (16 x 16 pixels)."""
        rows = LANE_STACK_OUTPUT if self.stack else 4
        return wl.n * -(-wl.h // rows) * -(-wl.w // 16)

    def lane_grid(self, wl: Conv2dWorkload) -> tuple[int, int]:
        """The lane kernel's grid: block-sized sets of tile groups (x), and blocks along K of
        tb_n x k_split channels each (y)."""
        return (-(-self.lane_tile_groups(wl) // self._lane_units()),
                wl.k // (self.tb_n * self.k_split))

    def lane_max_warps(self, wl: Conv2dWorkload) -> int:
        """Warps per lane block the register file holds: accumulators plus
        LANE_OTHER_REGISTERS (LANE_OTHER_REGISTERS_WGMMA with wgmma) per thread."""
        per_thread = self.accumulator_registers(wl) + (
            LANE_OTHER_REGISTERS_WGMMA if self.wgmma else LANE_OTHER_REGISTERS)
        return REGISTER_FILE // (per_thread * WARP_SIZE)

    def _lane_problems(self, wl: Conv2dWorkload) -> list[str]:
        """Every reason the lane-layout kernel cannot run this workload (empty when it can)."""
        out = []
        if wl.dtype == "int8" and wl.accum != "fp16":
            out.append(f"lane runs int8 on fp16 tensor cores: it takes accum fp16, not "
                       f"{wl.accum} (--accum fp16), or drop lane for the int8 MMA kernels")
        elif wl.m != 2:
            out.append(f"the lane layout takes m=2, not m={wl.m}: use the sync-free kernels "
                       "(drop lane)")
        if self != KernelConfig.lane_config(self.tb_n, self.tb_k, self.groups, self.k_split,
                                            self.stages, self.wgmma, self.tap_split, self.tma,
                                            self.exchange_own, self.stack):
            out.append(f"lane takes tb_m={LANE_TILES}, frag {'x'.join(map(str, LANE_FRAGMENT))}, "
                       "fusion full, pb, vec16, pad16 and no other knobs")
        if self.tap_split not in LANE_TAP_SPLITS:
            out.append(f"lane: tap_split={self.tap_split} warps per channel slice; one of "
                       f"{LANE_TAP_SPLITS}")
        warp_channels = tuple(c * self.tap_split for c in LANE_WARP_CHANNELS.get(wl.accum, ()))
        # No widths for this accumulator (int32): the dtype's problem above already says so.
        if warp_channels and self.tb_n not in warp_channels:
            split = f" and tap_split={self.tap_split}" if self.tap_split != 1 else ""
            out.append(f"lane: tb_n={self.tb_n} output channels per warp; with {wl.accum} "
                       f"accumulators{split} one of {warp_channels}")
        if self.tb_k not in LANE_CHUNK_CHANNELS or wl.c % self.tb_k:
            out.append(f"lane: tb_k={self.tb_k} channels per staged chunk must divide C={wl.c} "
                       f"and be one of {LANE_CHUNK_CHANNELS}")
        if self.stages not in LANE_STAGES:
            out.append(f"lane: stages={self.stages} patch buffers per tile group; one of "
                       f"{LANE_STAGES}")
        if self.exchange_own and self.tap_split == 1:
            out.append("lane: exchange_own (xown) places the tap split's exchange: it needs "
                       "tap_split=2")
        if self.stack and not (self.tma and self.groups == LANE_WARPGROUP_GROUPS):
            out.append(f"lane: stack shares one TMA patch among {LANE_WARPGROUP_GROUPS} tile "
                       f"groups: it needs tma and groups={LANE_WARPGROUP_GROUPS}")
        if self.stack and self.exchange_own:
            out.append("lane: stack keeps the tap split's exchange in memory of its own "
                       "already: drop exchange_own (xown)")
        if self.wgmma and self.groups % LANE_WARPGROUP_GROUPS:
            out.append(f"lane: wgmma (wg) takes warpgroups of {LANE_WARPGROUP_GROUPS} tile groups: "
                       f"groups={self.groups} must be a multiple of {LANE_WARPGROUP_GROUPS}")
        most = self.lane_max_warps(wl)
        if not (self.groups >= 1 and self.k_split >= 1 and self.tap_split >= 1
                and self.threads(wl) <= most * WARP_SIZE):
            knobs = ["groups", "k_split", *(["tap_split"] if self.tap_split != 1 else [])]
            counts = " x ".join(str(getattr(self, knob)) for knob in knobs)
            out.append(f"lane: {' x '.join(knobs)} warps ({counts}) must be 1 to {most} "
                       f"(the registers of {most} warps fill the register file)")
        elif self.tb_n > 0 and wl.k % (self.tb_n * self.k_split):
            out.append(f"lane: K={wl.k} must be a multiple of tb_n x k_split "
                       f"({self.tb_n} x {self.k_split})")
        return out

    def _staging_bytes(self, wl: Conv2dWorkload) -> int:
        """V and U slices, and one more V slice per further warp group."""
        return self._operand_bytes(wl) + (self.groups - 1) * self._v_bytes(wl)

    def _operand_bytes(self, wl: Conv2dWorkload) -> int:
        staged_rows = self.tb_m + (self.tb_n if self.u_smem else 0)
        return wl.alpha * wl.alpha * staged_rows * self._row_bytes(wl)

    def _row_bytes(self, wl: Conv2dWorkload) -> int:
        return self.tb_k * ELEMENT_BYTES[wl.dtype] + self.pad

    def _v_bytes(self, wl: Conv2dWorkload) -> int:
        return wl.alpha * wl.alpha * self.tb_m * self._row_bytes(wl)

    def _m_bytes(self, wl: Conv2dWorkload, row_elems: int) -> int:
        return wl.alpha * wl.alpha * self.tb_m * row_elems * ACCUMULATOR_BYTES[wl.accum]

    def m_row_elems(self, wl: Conv2dWorkload) -> int:
        """Row length of the staged M slice: m_channels plus M_ROW_PAD in the full kernel where that
        fits in the staging memory it reuses (V alone when persistent, as U stays) or, not
        persistent, leaves the blocks per SM and the carveout as they are; else plus the V/U
        row pad."""
        wide, narrow = self.m_channels + M_ROW_PAD, self._narrow_m_row(wl)
        if self.fusion != "full":
            return narrow
        if self.persist:
            return wide if self._m_bytes(wl, wide) <= self._v_bytes(wl) else narrow
        wide_sm, narrow_sm = (shared_residency(max(self._staging_bytes(wl), self._m_bytes(wl, row)))
                              for row in (wide, narrow))
        return wide if wide_sm == narrow_sm else narrow

    @property
    def m_channels(self) -> int:
        """Output channels of one round of the full kernel's M staging and OTrans."""
        return self.tb_n // self.m_rounds

    def ot_warp_rows(self) -> int:
        """Tile rows of M one OTrans warp reads at once: 32 lanes over m_channels / ot_channels."""
        return WARP_SIZE // (self.m_channels // self.ot_channels)

    def ot_row_step(self, wl: Conv2dWorkload) -> int:
        """Tile rows between the M rows one OTrans warp reads at once: 1 (warp w takes adjacent
        rows) or alpha (rows w, w + alpha, ...), whichever hits fewer banks twice (fp16 M, 16
        lanes per 80-byte row: adjacent rows conflict 2-way, rows alpha = 4 apart are disjoint)."""
        lanes_per_row = self.m_channels // self.ot_channels
        rows = self.ot_warp_rows()
        if rows <= 1 or self.tb_m % (rows * wl.alpha):
            return 1
        access = self.ot_channels * ACCUMULATOR_BYTES[wl.accum]
        row_bytes = self.m_row_elems(wl) * ACCUMULATOR_BYTES[wl.accum]

        def wavefronts(step: int) -> int:
            return shared_wavefronts([r * step * row_bytes + lane * access
                                      for r in range(rows) for lane in range(lanes_per_row)],
                                     access)
        return wl.alpha if wavefronts(wl.alpha) < wavefronts(1) else 1

    def _narrow_m_row(self, wl: Conv2dWorkload) -> int:
        return self.m_channels + self.pad // ACCUMULATOR_BYTES[wl.accum]

    def blocks(self, wl: Conv2dWorkload) -> int:
        if self.lane:
            return math.prod(self.lane_grid(wl))
        if self.f23:
            return math.prod(self.f23_grid(wl))
        return wl.ntiles_padded(self.tb_m) // self.tb_m * (wl.k // (self.tb_n * self.k_split))

    def problems(self, wl: Conv2dWorkload, device: DeviceLimits | None = None) -> list[str]:
        """Every reason this config cannot run this workload (empty when it can)."""
        out = []
        if wl.dtype not in ELEMENT_BYTES:
            out.append(f"dtype {wl.dtype} has no Tensor Core path: use fp16 or int8")
            return out
        if not self.f23 and (knobs := self.f23_only_knobs()):
            value = getattr(self, knobs[0])
            shown = knobs[0] if value is True else f"{knobs[0]}={value}"
            out.append(f"{shown}: {F23_ONLY_KNOBS[knobs[0]]} of the F(2, 3) kernel only: drop it "
                       "or add f23")
            return out
        if self.f23:
            out = self._f23_problems(wl)
            if not out and device is not None and self.smem_bytes(wl) > device.smem_per_block:
                fewer = "fewer stages, or " if self.stages > F23_STAGES[0] else ""
                out.append(f"f23: shared memory {self.smem_bytes(wl)} B (U's ring, and the "
                           f"input patches of W={wl.w} in {self.stages} stages) exceeds "
                           f"{device.name}'s {device.smem_per_block} B per block: {fewer}the "
                           "lane or sync-free kernels for images this wide")
            return out
        if wl.dtype == "int8" and wl.accum == "fp16" and not self.lane:
            out.append("int8 with fp16 accumulators runs only in the lane kernel: add lane "
                       "(or take accum int32 for the int8 MMA kernels)")
            return out
        if wl.dtype == "int8" and wl.accum == "fp32":
            out.append("int8 with fp32 accumulators runs only in the F(2, 3) kernel: add f23 "
                       "(or take accum int32 for the int8 MMA kernels, fp16 for the lane kernel)")
            return out
        if self.lane:
            out = self._lane_problems(wl)
            if not out and device is not None and self.smem_bytes(wl) > device.smem_per_block:
                out.append(f"lane: shared memory {self.smem_bytes(wl)} B (U for "
                           f"{self.tb_n * self.k_split} channels, {self.groups} patches) exceeds "
                           f"{device.name}'s {device.smem_per_block} B per block")
            return out
        if self.fragment not in FRAGMENTS:
            out.append(f"fragment {self.fragment} is not a WMMA shape: choose one of {FRAGMENTS}")
        if self.fusion not in FUSIONS:
            out.append(f"fusion {self.fusion!r} is unknown: choose one of {', '.join(FUSIONS)}")
        if wl.c % self.frag_k:
            out.append(f"C={wl.c} is not a multiple of {self.frag_k} (WMMA K)")
        for knob, frag in (("tb_m", self.frag_m), ("tb_n", self.frag_n), ("tb_k", self.frag_k)):
            if getattr(self, knob) <= 0 or getattr(self, knob) % frag:
                out.append(
                    f"{knob}={getattr(self, knob)} is not a multiple of the fragment's {frag}"
                )
        if wl.k % self.tb_n:
            out.append(f"K={wl.k} is not a multiple of tb_n={self.tb_n}")
        if wl.c % self.tb_k:
            out.append(f"C={wl.c} is not a multiple of tb_k={self.tb_k}")
        ve = ELEMENT_BYTES[wl.dtype]
        if self.vec % ve or (self.tb_k * ve) % self.vec or self.vec > 16:
            out.append(f"vec={self.vec} bytes must divide a tb_k row and be at most 16 bytes")
        if self.pad % 16:
            out.append(f"pad={self.pad} bytes must be a multiple of 16 (WMMA pointer alignment)")
        if self.persist and not self.can_persist(wl):
            out.append(
                f"persist (pb) needs fusion full, U in shared memory (not ul2), tb_k = C={wl.c}, "
                f"tb_n >= tb_m and an M slice ({self._m_bytes(wl, self._narrow_m_row(wl))} B) "
                f"within the V staging ({self._v_bytes(wl)} B): drop it or change the tiles"
            )
        if self.groups != 1 and not (self.persist and 1 < self.groups and self.threads(wl) <= 1024):
            out.append(
                f"groups={self.groups}: warp groups are 1, or 2 and more with persist (pb) "
                f"and at most 1024 threads per block ({WARP_SIZE * wl.alpha} per group at "
                f"m={wl.m}): drop it or use fewer groups"
            )
        if self.k_split != 1 and not (
                self.persist and self.groups == 1 and 1 < self.k_split and wl.m == 2
                and wl.k % (self.tb_n * self.k_split) == 0 and self.threads(wl) <= 1024):
            out.append(
                f"k_split={self.k_split}: a channel split is 1, or 2 and more with persist (pb), "
                f"one warp group, m=2 (whole input tiles), K={wl.k} a multiple of tb_n x "
                f"k_split and at most 1024 threads per block: drop it or change the tiles"
            )
        if self.ot_channels not in OT_CHANNELS:
            out.append(f"ot_channels={self.ot_channels}: an OTrans thread takes "
                       f"{' or '.join(map(str, OT_CHANNELS))} adjacent channels")
        if self.m_rounds != 1 and not (
                self.fusion == "full" and self.m_rounds in M_ROUNDS
                and self.m_channels % self.frag_n == 0
                and self.m_channels % self.ot_channels == 0):
            out.append(
                f"m_rounds={self.m_rounds}: M staged in rounds is 1, or {M_ROUNDS[1:]} with "
                f"fusion full and tb_n / m_rounds ({self.tb_n} / {self.m_rounds}) a multiple of "
                f"the fragment's {self.frag_n} and of ot_channels: drop it or change the tiles"
            )
        if self.min_blocks and not (self.fusion == "full" and 2 <= self.min_blocks
                                    and self.threads(wl) * self.min_blocks <= MAX_SM_THREADS):
            out.append(f"min_blocks={self.min_blocks}: blocks per SM for ptxas are 0 (none), or "
                       f"2 and more with fusion full and at most {MAX_SM_THREADS} threads per "
                       f"SM ({self.threads(wl)} per block): drop it or ask for fewer")
        for knob in self.lane_only_knobs():
            value = getattr(self, knob)
            shown = knob if value is True else f"{knob}={value}"
            what = "patch buffers are a knob" if knob == "stages" else "a knob"
            out.append(f"{shown}: {what} of the lane kernel only: drop it or add lane")
        if device is not None and self.smem_bytes(wl) > device.smem_per_block:
            out.append(
                f"shared memory {self.smem_bytes(wl)} B exceeds {device.name}'s "
                f"{device.smem_per_block} B per block"
            )
        return out

    def validate(self, wl: Conv2dWorkload, device: DeviceLimits | None = None) -> None:
        problems = self.problems(wl, device)
        if problems:
            raise WinoError(f"config {self.name(wl)} is invalid: " + "; ".join(problems))


# The numbered optional tokens of KernelConfig.name(), in its order: prefix -> knob. A knob at its
# default value has no token.
COUNTED_TOKENS = {"g": "groups", "ks": "k_split", "oc": "ot_channels", "mr": "m_rounds",
                  "lb": "min_blocks", "st": "stages", "ts": "tap_split", "cs": "c_split"}
_DEFAULTS = {f.name: f.default for f in fields(KernelConfig)}
# The knobs only the lane kernel takes, in the order their problems (and build's flags) are told.
LANE_ONLY_KNOBS = ("stages", "wgmma", "tma", "exchange_own", "stack", "tap_split")
# The knobs only the F(2, 3) kernel takes, in the order their problems are told, and what each is.
F23_ONLY_KNOBS = {"c_split": "a knob", "stream_k": "a schedule", "compact_rows": "a layout",
                  "row_pairs": "a layout"}


def artifact_name(wl: Conv2dWorkload, cfg: KernelConfig) -> str:
    """Folder name of one case: workload, config, epilogue and a non-default output type."""
    default_out = wl.out == OUTPUTS[wl.dtype][0]
    return "-".join([wl.key, cfg.name(wl), *(["_".join(wl.epilogue)] if wl.epilogue else []),
                     *([] if default_out else [f"out_{wl.out}"])])


# Row pads the int8 patch tries: 16-byte steps (cp.async's alignment) over one 128-byte period.
F23_INT8_ROW_PADS = tuple(range(0, 128, 16))


@cache
def _int8_patch_pad(rows: int, h: int, tiles: int, compact_rows: bool, row_pairs: bool) -> int:
    """The F(2, 3) kernel's int8 row pad for its `rows` GEMM rows (KernelConfig.f23_rows): the
    least of F23_INT8_ROW_PADS with the fewest shared load wavefronts (worst, then mean) over a
    period of warpgroups. Each lane (g, q) loads 4 bytes of pixel 2t + e; 16-byte pixels put a
    row's 8 tiles 8 words apart, 2 to a bank (2 wavefronts, as fp16's 8-byte loads), and a row
    crossing may stack a third."""
    image_rows = h if compact_rows else h + 1
    period = math.lcm(F23_WARPGROUP_ROWS, 2 * image_rows * tiles) // F23_WARPGROUP_ROWS
    groups = min(period, -(-rows // F23_WARPGROUP_ROWS))

    def patch_row(o: int) -> int:  # the template's padded_row
        return o // h * (h + 1) + o % h if compact_rows else o

    def wavefronts(pad: int) -> tuple[int, float]:
        row_bytes = (2 * tiles + 2) * 16 + pad
        counts = []
        for g0 in range(0, groups * F23_WARPGROUP_ROWS, F23_WARPGROUP_ROWS):
            for warp in range(4):
                for hh in range(2):
                    words: dict[int, set[int]] = {}
                    for g in range(8):
                        if row_pairs:
                            pair = g0 // 2 + 8 * warp + g
                            o, t = 2 * (pair // tiles) + hh, pair % tiles
                        else:
                            o, t = divmod(g0 + 16 * warp + g + 8 * hh, tiles)
                        for q in range(4):
                            word = (patch_row(o) * row_bytes + 32 * t + 4 * q) // 4
                            words.setdefault(word % 32, set()).add(word)
                    counts.append(max(len(bank) for bank in words.values()))
        return max(counts), sum(counts) / len(counts)

    return min(F23_INT8_ROW_PADS, key=lambda pad: (*wavefronts(pad), pad))
