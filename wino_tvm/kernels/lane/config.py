"""The lane family's config: its knobs as data, and its shared-memory, register and grid model,
which templates/lane_layout.cu static_asserts (TVM-free)."""

from __future__ import annotations

from ...device import REGISTER_FILE, WARP_SIZE, DeviceLimits
from ...workload import BYTES, Conv2dWorkload
from ..base import FamilyConfig, Fixed, Knob, knob_fields

# mma.sync m16n8k16: a warp's 16 tiles (the MMA's M) x tb_n output channels, all 16 taps.
TILES = 16
# Output channels per warp with all 16 taps (times tap_split with a share of them): the
# accumulators take 128 registers at most.
WARP_CHANNELS = {"fp16": (16, 32), "fp32": (16,)}
# Registers a thread needs beside its accumulators (ptxas, nvcc 13: 212 with 128 accumulator
# registers, 140-142 with 64): a block gets as many warps as the register file holds then.
OTHER_REGISTERS = 84
# With wgmma (nvcc 13: 228 with 128 accumulator registers and one channel slice, 245 with two):
# all 16 taps' A registers stay live until the step's MMAs are done.
OTHER_REGISTERS_WGMMA = 100
PATCH_PIXELS = 6 * 18  # a tile group's input: 2 x 8 tiles of 4 x 4 pixels
# Stacked: the block's WARPGROUP_GROUPS tile groups one above the other, 8 x 8 tiles (16 x 16
# output pixels) sharing one 18 x 18 patch.
STACK_PIXELS = 18 * 18
STACK_OUTPUT = 16
# A warpgroup (4 warps, M = 64 tiles) of wgmma is 4 tile groups of one channel slice.
WARPGROUP_GROUPS = 4
# TMA: patch buffers start on 128-byte boundaries (a cp.async.bulk.tensor destination), each
# with an 8-byte mbarrier.
TMA_ALIGN = 128
MBARRIER_BYTES = 8


KNOBS = (
    Fixed(("tbm16",)),
    Knob("tb_n", 16, (16, 32, 64), "tbn",
         "output channels per warp (with tap_split 2, for its share of the taps)", always=True),
    Knob("tb_k", 16, (16, 32, 64, 128), "tbk",
         "input channels per staged patch chunk (dividing C)", always=True),
    # The names before the families kept the TVM family's tokens for what is fixed here.
    Fixed(("frag16x8x16", "full", "vec16", "pad16", "pb", "lane")),
    Knob("wgmma", False, (False, True), "wg",
         "wgmma for a warpgroup's four tile groups instead of mma.sync (sm_90a)", axis=(False,),
         requires=((lambda c: c.groups % WARPGROUP_GROUPS == 0,
                    f"needs groups a multiple of {WARPGROUP_GROUPS}"),)),
    Knob("tma", False, (False, True), "tma",
         "each patch chunk staged by one TMA copy instead of per-thread cp.async (sm_90a)",
         axis=(False,)),
    Knob("exchange_own", False, (False, True), "xown",
         "the tap split's OTrans exchange in shared memory of its own (one barrier, not two)",
         axis=(False,), requires=((lambda c: c.tap_split == 2, "needs tap_split=2"),
                                  (lambda c: not c.stack, "is implied by stack: drop it"))),
    Knob("stack", False, (False, True), "stack",
         "the block's four tile groups stacked on one shared patch per chunk",
         axis=(False,),
         requires=((lambda c: c.tma and c.groups == WARPGROUP_GROUPS,
                    f"needs tma and groups={WARPGROUP_GROUPS}"),)),
    Knob("groups", 1, (1, 2, 3, 4, 6, 8, 10, 12), "g", "tile groups per persistent block"),
    Knob("k_split", 1, (1, 2, 4), "ks", "warps (channel slices) sharing each tile group"),
    Knob("stages", 2, (2, 3, 4), "st", "patch buffers per tile group (chunks staged ahead)",
         axis=(2, 3)),
    Knob("tap_split", 1, (1, 2), "ts",
         "warps per channel slice, each with a share of the tap rows for that many x the "
         "channels (each tile's input transformed that many x less often)"),
)


@knob_fields(KNOBS)
class LaneConfig(FamilyConfig):
    """The full kernel in the MMA's lane layout: a warp owns 16 tiles x tb_n output channels
    for all taps (or its share of them), transforms its own A fragments and applies OTrans to
    its own accumulators; persistent blocks of `groups` tile groups."""

    FAMILY = "lane"

    @property
    def needs_sm90a(self) -> bool:
        return self.wgmma or self.tma

    def accumulator_registers(self, wl: Conv2dWorkload) -> int:
        """16 / tap_split taps x tb_n / 8 n8 blocks, 4 elements of each per lane."""
        return (wl.alpha * wl.alpha // self.tap_split * self.tb_n // 8 * 4
                * BYTES[wl.accum] // 4)

    def threads(self, wl: Conv2dWorkload) -> int:
        """A warp per channel slice and share of the taps, per tile group."""
        return WARP_SIZE * self.k_split * self.tap_split * self.groups

    def max_warps(self, wl: Conv2dWorkload) -> int:
        """Warps per block the register file holds: accumulators plus OTHER_REGISTERS
        (OTHER_REGISTERS_WGMMA with wgmma) per thread."""
        per_thread = self.accumulator_registers(wl) + (
            OTHER_REGISTERS_WGMMA if self.wgmma else OTHER_REGISTERS)
        return REGISTER_FILE // (per_thread * WARP_SIZE)

    def smem_bytes(self, wl: Conv2dWorkload) -> int:
        """U's rows for the block's tb_n x k_split channels (C + 8 halves: conflict-free
        ldmatrix; C in wgmma's core matrices), per tile group `stages` patch buffers of tb_k
        channels, with the tap split the exchange's own memory (exchange_tiles), with TMA an
        mbarrier per buffer; stacked, one set of patch buffers for the block."""
        u_rows = wl.alpha * wl.alpha * self.tb_n * self.k_split
        u_bytes = BYTES["fp16"] * u_rows * (wl.c + (0 if self.wgmma else 8))
        rings = self._units()
        return (u_bytes + rings * self.stages * self._patch_bytes(wl)
                + self.groups * self.exchange_tiles(wl) * self._exchange_bytes(wl)
                + (rings * self.stages * MBARRIER_BYTES if self.tma else 0))

    def _units(self) -> int:
        """The block's units of work, each with its ring of patch buffers: its tile groups,
        or stacked one."""
        return 1 if self.stack else self.groups

    def pixel_pad(self, wl: Conv2dWorkload) -> int:
        """Elements after a patch pixel's tb_k channels: the fewest 16-byte units that make the
        pixel an odd number of them (a warp's patch reads then take 2 wavefronts, the fewest)."""
        element = BYTES[wl.dtype]
        units = -(-self.tb_k * element // 16) + 1
        return (units + 1 - units % 2) * 16 // element - self.tb_k

    def _patch_bytes(self, wl: Conv2dWorkload) -> int:
        """One patch buffer: the tile group's (stacked: the block's) pixels x (tb_k +
        pixel_pad) elements (with TMA rounded up to TMA_ALIGN)."""
        pixels = STACK_PIXELS if self.stack else PATCH_PIXELS
        raw = BYTES[wl.dtype] * pixels * (self.tb_k + self.pixel_pad(wl))
        return -(-raw // TMA_ALIGN) * TMA_ALIGN if self.tma else raw

    def _exchange_bytes(self, wl: Conv2dWorkload) -> int:
        """The tap split's words per tile group and tile: each lane's partial output row for
        the other warp (2 pixels x tb_n channels, half of them, in accumulator bytes)."""
        group_threads = WARP_SIZE * self.k_split * self.tap_split
        return group_threads * self.tb_n * BYTES[wl.accum] // 2

    def exchange_tiles(self, wl: Conv2dWorkload) -> int:
        """Tiles of the tap split's exchange in memory of its own: none without the split, one
        where the group's words for the other tile fit its last patch buffer and exchange_own
        and stack are off, else two (a stacked block's patch buffer is the block's, free for
        the exchange only after all its warps are done with it)."""
        if self.tap_split == 1:
            return 0
        if self.exchange_own or self.stack:
            return 2
        return 1 if self._exchange_bytes(wl) <= self._patch_bytes(wl) else 2

    def tile_groups(self, wl: Conv2dWorkload) -> int:
        """Units of work: 2 x 8 tiles (4 x 16 output pixels) of one image; stacked, the
        block's: 8 x 8 tiles (16 x 16 pixels)."""
        rows = STACK_OUTPUT if self.stack else 4
        return wl.n * -(-wl.h // rows) * -(-wl.w // 16)

    def grid(self, wl: Conv2dWorkload) -> tuple[int, int]:
        """Block-sized sets of tile groups (x), and blocks along K of tb_n x k_split channels
        each (y)."""
        return (-(-self.tile_groups(wl) // self._units()), wl.k // (self.tb_n * self.k_split))

    def blocks(self, wl: Conv2dWorkload) -> int:
        x, y = self.grid(wl)
        return x * y

    def problems(self, wl: Conv2dWorkload, device: DeviceLimits | None = None) -> list[str]:
        out = []
        if wl.dtype == "int8" and wl.accum != "fp16":
            out.append(f"lane runs int8 on fp16 tensor cores: it takes accum fp16, not "
                       f"{wl.accum}")
        elif wl.dtype == "fp16" and wl.accum not in WARP_CHANNELS:
            out.append(f"lane: fp16 takes fp16 or fp32 accumulators, not {wl.accum}")
        if wl.m != 2:
            out.append(f"lane takes m=2, not m={wl.m}")
        out += self.knob_problems()
        if out:
            return out
        warp_channels = tuple(c * self.tap_split for c in WARP_CHANNELS[wl.accum])
        if self.tb_n not in warp_channels:
            split = f" and tap_split={self.tap_split}" if self.tap_split != 1 else ""
            out.append(f"lane: tb_n={self.tb_n} output channels per warp; with {wl.accum} "
                       f"accumulators{split} one of {warp_channels}")
        if wl.c % self.tb_k:
            out.append(f"lane: tb_k={self.tb_k} channels per staged chunk must divide C={wl.c}")
        most = self.max_warps(wl)
        if self.threads(wl) > most * WARP_SIZE:
            knobs = ["groups", "k_split", *(["tap_split"] if self.tap_split != 1 else [])]
            counts = " x ".join(str(getattr(self, knob)) for knob in knobs)
            out.append(f"lane: {' x '.join(knobs)} warps ({counts}) must be at most {most} "
                       f"(the registers of {most} warps fill the register file)")
        elif wl.k % (self.tb_n * self.k_split):
            out.append(f"lane: K={wl.k} must be a multiple of tb_n x k_split "
                       f"({self.tb_n} x {self.k_split})")
        return out or self.device_problems(wl, device)
