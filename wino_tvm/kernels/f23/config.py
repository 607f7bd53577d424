"""The F(2, 3) family's config: its knobs as data, and its shared-memory, grid and patch model,
which templates/f23_wgmma.cu static_asserts (TVM-free).

Winograd along w only: a block of 128 flat tile rows (two warpgroups of m64) x 64 output
channels, C in 16-channel chunks, wgmma m64n64k16 with V in registers and U in shared memory.
"""

from __future__ import annotations

import math
from functools import cache

from ...device import WARP_SIZE, DeviceLimits, shmem_aligned
from ...workload import Conv2dWorkload
from ..base import FamilyConfig, Fixed, Knob, knob_fields

M = 2  # output pixels per tile, along w
# (dtype, accumulator) pairs the kernel takes: fp16, and int8 on the fp16 MMA (V and U of int8
# data are exact in fp16; docs/int8.md) into the same fp32 accumulators.
PRECISIONS = (("fp16", "fp32"), ("int8", "fp32"))
TB_M, TB_N, TB_K = 128, 64, 16
WARPGROUP_ROWS = 64
TAPS = 4  # V_j, j = 0..3: the accumulator sets
U_STAGES = 4  # U's ring of bulk copies
MBARRIER_BYTES = 8
# Stream-K: the most blocks a launch takes (one slot of partial sums each); sm_90 parts have at
# most 132 SMs and one F(2, 3) block fits an SM.
SK_MAX_BLOCKS = 144
SK_THREAD_FLOATS = 64  # a thread's partial sums after OTrans: 4 output slots x 16 channels
# The kernel's offsets into x are 32-bit.
MAX_ELEMENTS = 2**31 - 1
# Row pads the int8 patch tries: 16-byte steps (cp.async's alignment) over one 128-byte period.
INT8_ROW_PADS = tuple(range(0, 128, 16))


KNOBS = (
    # The names before the families kept the TVM family's tokens for what is fixed here.
    Fixed((f"tbm{TB_M}", f"tbn{TB_N}", f"tbk{TB_K}", "frag64x64x16", "full", "vec16", "pad16")),
    Knob("persist", False, (False, True), "pb",
         "persistent blocks (as many as stay resident) looping over the tiles",
         requires=((lambda c: c.c_split == 1, "does not split C: drop c_split"),)),
    Fixed(("f23",)),
    Knob("stream_k", False, (False, True), "sk",
         "persistent blocks each take an equal contiguous share of all tiles' C chunks, a "
         "split tile summed through a global workspace",
         requires=((lambda c: c.persist, "is a schedule of persistent blocks: add persist"),)),
    Knob("compact_rows", False, (False, True), "cr",
         "GEMM rows of the images' rows only, no garbage row between images (1 / (H + 1) "
         "fewer MMAs)"),
    Knob("row_pairs", False, (False, True), "rp",
         "a lane's two GEMM rows one row of tiles apart, so one transformed input row serves "
         "both"),
    Knob("stages", 3, (3, 4), "st", "input buffers per warpgroup", always=True),
    # Strips keep the patch to a strip's width, so the kernel takes any W (experiments:
    # f23_strips): the tuner tries them where whole rows do not fit or leave few tiles a row.
    # 7 and 14 divide the rows of W = 28 and 56 without the pad tiles 8 leaves: 7, with compact
    # rows, is the default where it saves a round of persistent blocks (f23_strips7_rounds).
    Knob("strip", 0, (0, 7, 8, 14, 16, 32), "sw",
         "rows of tiles cut into strips of this many tiles (2 output pixels each), stacked as "
         "images of their own; 0: whole rows"),
    Knob("x_chunks", 1, (1, 2), "xc",
         "16-channel chunks per input stage: with 2 each pixel's copy is 64 contiguous bytes, "
         "half the L1 wavefronts a copied byte",
         requires=((lambda c: not c.stream_k, "is not a stream-K schedule: drop stream_k"),)),
    # cs4 lost everywhere it was measured (experiments: tune_csplit): not in the default axis.
    Knob("c_split", 1, (1, 2, 4), "cs",
         "a cluster of this many blocks shares each block's outputs, each with that share of "
         "the C loop (for workloads with fewer blocks than SMs)", axis=(1, 2)),
    Knob("producer", False, (False, True), "pw",
         "a third warpgroup issues the input copies onto mbarriers, its registers moved to the "
         "MMA warpgroups (setmaxnreg)",
         requires=((lambda c: not c.stream_k and c.c_split == 1,
                    "takes neither stream-K nor a C split: drop stream_k and c_split"),)),
)


@knob_fields(KNOBS)
class F23Config(FamilyConfig):
    """The F(2, 3) kernel's schedule: its input ring's depth, its C split, persistent blocks and
    their stream-K schedule, its GEMM rows' layout and pairing; the tiles are fixed."""

    FAMILY = "f23"
    tb_m, tb_n, tb_k = TB_M, TB_N, TB_K

    @property
    def needs_sm90a(self) -> bool:
        return True

    def threads(self, wl: Conv2dWorkload) -> int:
        """A warpgroup of 4 warps per 64 rows, and one more with the producer."""
        return 4 * WARP_SIZE * (TB_M // WARPGROUP_ROWS + self.producer)

    def accumulator_registers(self, wl: Conv2dWorkload) -> int:
        """TAPS sets of a warpgroup's m64 x tb_n over its threads, 4 bytes each."""
        return TAPS * WARPGROUP_ROWS * TB_N // (4 * WARP_SIZE)

    def tiles(self, wl: Conv2dWorkload) -> int:
        """Tiles (2 output pixels each) per row of the patch: a strip's, or a whole row's."""
        return self.strip or row_tiles(wl)

    def images(self, wl: Conv2dWorkload) -> int:
        """Images as the GEMM rows stack them: each strip of each image is one."""
        return wl.n * -(-row_tiles(wl) // self.tiles(wl))

    def rows(self, wl: Conv2dWorkload) -> int:
        """GEMM rows: images() H tiles() tiles of 2 output pixels with compact_rows, else
        images() (H + 1) tiles(), each image's last row of tiles garbage over the zero row between
        images; with row_pairs rounded up to whole pairs of rows."""
        tile_rows = self.images(wl) * (wl.h if self.compact_rows else wl.h + 1)
        if self.row_pairs:
            tile_rows += tile_rows % 2
        return tile_rows * self.tiles(wl)

    def smem_bytes(self, wl: Conv2dWorkload) -> int:
        """templates/f23_wgmma.cu's kSmemBytes, which it static_asserts: U's ring of U_STAGES
        chunks (12 slices of 16 x tb_n), per warpgroup (with the producer, one for both)
        `stages` input patches (the padded input rows, a zero row before each image, that its 64
        (128) GEMM rows and the 2 filter rows below reach, each 2T + 2 pixels of pixel_bytes and
        row_pad_bytes; V goes from the patch into wgmma's A registers), and the U ring's two
        mbarriers a stage (with the producer two more a stage of the input ring)."""
        tiles = self.tiles(wl)
        patch_rows = TB_M if self.producer else WARPGROUP_ROWS
        pairs = patch_rows // 2  # with row_pairs: from a multiple of that
        span = (2 * max((first % tiles + pairs - 1) // tiles
                        for first in range(0, pairs * tiles, pairs)) + 1 if self.row_pairs
                else (patch_rows - 1 + tiles - 1) // tiles)
        if self.compact_rows:  # up to `span` + 1 output rows and the zero rows between them
            rows = span + (wl.h - 1 + span) // wl.h + 3
        elif self.row_pairs:  # the pairs' rows are the padded rows
            rows = span + 3
        else:
            rows = (patch_rows + 2 * tiles - 1) // tiles + 2
        patch = rows * ((2 * tiles + 2) * self.pixel_bytes(wl) + self.row_pad_bytes(wl))
        group = self.stages * shmem_aligned(patch)
        u_chunk = 12 * TB_K * TB_N * 2
        rings = 1 if self.producer else TB_M // WARPGROUP_ROWS
        x_bars = 2 * self.stages * MBARRIER_BYTES if self.producer else 0
        return U_STAGES * u_chunk + rings * group + 2 * U_STAGES * MBARRIER_BYTES + x_bars

    def pixel_bytes(self, wl: Conv2dWorkload) -> int:
        """A staged pixel: its x_chunks * 16 channels, fp16 with 8 halves more (so that a
        warp's 8-byte loads of tiles 2 pixels apart fall in distinct banks)."""
        channels = TB_K * self.x_chunks
        return channels if wl.dtype == "int8" else 2 * (channels + 8)

    def row_pad_bytes(self, wl: Conv2dWorkload) -> int:
        """Bytes after each row of the staged patch, so that a warp's loads stay on distinct
        banks where its tiles cross into the next row (with row_pairs, two)."""
        tiles = self.tiles(wl)
        if wl.dtype == "int8":
            return _int8_patch_pad(self.rows(wl), wl.h, tiles, self.compact_rows,
                                   self.row_pairs, self.pixel_bytes(wl))
        # fp16, 8-byte loads, a half-warp's 4 tiles at a time, a tile 2P words on (P: a
        # pixel's words): crossing a row skips its 2 halo pixels, which lands one load on a
        # bank another already reads (1.43x the shared load wavefronts at W = 14, 1.14x at 28,
        # P = 12); a pad of -2P words mod 32 keeps the banks in step, and with T % 4 == 0 no
        # half-warp crosses. With row pairs the tiles cross two rows: the pad makes that jump
        # 2 T P words mod 32, as if the row went on.
        words = self.pixel_bytes(wl) // 4
        if self.row_pairs:
            return 4 * (-(tiles + 2) * words % 16)
        return 0 if tiles % 4 == 0 else 4 * (-2 * words % 32)

    def grid(self, wl: Conv2dWorkload) -> tuple[int, int, int]:
        """Blocks along K (x), blocks of tb_m rows (y), the C split's cluster (z); persistent:
        every tile along x (the launch takes the resident blocks); stream-K: up to a block per
        16-channel chunk of all tiles, at most SK_MAX_BLOCKS."""
        grid = wl.k // TB_N, -(-self.rows(wl) // TB_M), self.c_split
        tiles = grid[0] * grid[1]
        if self.stream_k:
            return min(tiles * wl.c // TB_K, SK_MAX_BLOCKS), 1, 1
        return (tiles, 1, 1) if self.persist else grid

    def blocks(self, wl: Conv2dWorkload) -> int:
        return math.prod(self.grid(wl))

    def problems(self, wl: Conv2dWorkload, device: DeviceLimits | None = None) -> list[str]:
        out = []
        if (wl.dtype, wl.accum) not in PRECISIONS:
            out.append(f"f23 takes fp16 or int8 with fp32 accumulators, not {wl.dtype} with "
                       f"{wl.accum}")
        if wl.m != M:
            out.append(f"f23 computes {M} output pixels per tile (m={M}), not m={wl.m}")
        out += self.knob_problems()
        if self.row_pairs and self.compact_rows and wl.h % 2:
            out.append(f"f23: row pairs (rp) of compact rows (cr) pair the rows of an image, "
                       f"H={wl.h} is odd: drop one (padded rows pair across images)")
        if self.strip and self.strip >= row_tiles(wl):
            out.append(f"f23: strip={self.strip} tiles (sw) is not below W={wl.w}'s "
                       f"{row_tiles(wl)} tiles a row: drop strip")
        if wl.c % TB_K or wl.k % TB_N:
            out.append("f23: " + " and ".join(
                f"{name}={value} must be a multiple of {step}"
                for name, value, step in (("C", wl.c, TB_K), ("K", wl.k, TB_N)) if value % step))
        elif wl.c // TB_K % self.c_split:
            out.append(f"f23: c_split={self.c_split} must divide C={wl.c}'s {wl.c // TB_K} "
                       f"chunks of {TB_K} channels")
        elif wl.c // TB_K // self.c_split % self.x_chunks:
            out.append(f"f23: x_chunks={self.x_chunks} (xc) must divide a block's "
                       f"{wl.c // TB_K // self.c_split} chunks of {TB_K} channels (C={wl.c}, "
                       f"c_split={self.c_split}): drop x_chunks")
        if max(wl.c, wl.k) * wl.n * wl.h * wl.w > MAX_ELEMENTS:
            out.append(f"f23: x and y must have fewer than 2^31 elements (32-bit offsets): "
                       f"split the batch N={wl.n}")
        if not out and device is not None and self.smem_bytes(wl) > device.smem_per_block:
            fewer = "fewer stages, or " if self.stages > 3 else ""
            out.append(f"f23: shared memory {self.smem_bytes(wl)} B (U's ring, and the input "
                       f"patches of W={wl.w} in {self.stages} stages) exceeds {device.name}'s "
                       f"{device.smem_per_block} B per block: {fewer}strips (sw) for "
                       "images this wide")
        return out or self.device_problems(wl, device)


def row_tiles(wl: Conv2dWorkload) -> int:
    """Tiles of M output pixels in a whole row of the image."""
    return -(-wl.w // M)


@cache
def _int8_patch_pad(rows: int, h: int, tiles: int, compact_rows: bool, row_pairs: bool,
                    pixel: int) -> int:
    """The int8 row pad for `rows` GEMM rows: the least of INT8_ROW_PADS with the fewest shared
    load wavefronts (worst, then mean) over a period of warpgroups. Each lane (g, q) loads 4
    bytes of pixel 2t + e; 16-byte pixels put a row's 8 tiles 8 words apart, 2 to a bank (2
    wavefronts, as fp16's 8-byte loads), and a row crossing may stack a third."""
    image_rows = h if compact_rows else h + 1
    period = math.lcm(WARPGROUP_ROWS, 2 * image_rows * tiles) // WARPGROUP_ROWS
    groups = min(period, -(-rows // WARPGROUP_ROWS))

    def patch_row(o: int) -> int:  # the template's padded_row
        return o // h * (h + 1) + o % h if compact_rows else o

    def wavefronts(pad: int) -> tuple[int, float]:
        row_bytes = (2 * tiles + 2) * pixel + pad
        counts = []
        for g0 in range(0, groups * WARPGROUP_ROWS, WARPGROUP_ROWS):
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
                            word = (patch_row(o) * row_bytes + 2 * pixel * t + 4 * q) // 4
                            words.setdefault(word % 32, set()).add(word)
                    counts.append(max(len(bank) for bank in words.values()))
        return max(counts), sum(counts) / len(counts)

    return min(INT8_ROW_PADS, key=lambda pad: (*wavefronts(pad), pad))
