"""The F(4x4) family's config: its knobs as data, and the shared-memory, grid and workspace
model that templates/f44_nonfused.cu static_asserts (TVM-free).

Three kernels a forward: ITrans to V in global memory, a batched GEMM on wgmma (a block of
block_m tiles x block_n output channels of one tap, C in chunks of 64), OTrans with the epilogue.
"""

from __future__ import annotations

from ...device import WARP_SIZE, DeviceLimits
from ...workload import Conv2dWorkload
from ..base import FamilyConfig, Fixed, Knob, knob_fields

M = 4  # output pixels per tile side
ALPHA = M + 2
TAPS = ALPHA * ALPHA
PRECISIONS = (("fp16", "fp32"),)
WARPGROUP_M = 64  # a consumer warpgroup's GEMM rows (tiles): wgmma's m64
WARPGROUP_N = (128, 256)  # its columns: one or two m64n128k16 wgmmas a k-step
CHUNK_C = 64  # channels a staged operand chunk
MBARRIER_BYTES = 8
CONSUMER_WARPS = 8
TRANSFORM_THREADS = 256
ITRANS_CHANNELS = 2  # channels an ITrans thread (templates/f44_nonfused.cu says why)
ITRANS_PATCH = (4, 8)  # tile rows and columns an ITrans block, its input region read once
ITRANS_SLICE = 16  # channels an ITrans block
ITRANS_THREADS = ITRANS_PATCH[0] * ITRANS_PATCH[1] * ITRANS_SLICE // ITRANS_CHANNELS
OTRANS_CHANNELS = 2  # channels an OTrans thread: 4-byte loads and stores
# The kernels' element offsets are 64-bit, but V, M and U together must stay a workspace a
# model can afford beside its activations: 1 GiB.
MAX_WORKSPACE_BYTES = 1 << 30

KNOBS = (
    Fixed(("f44",)),
    Knob("block_m", 128, (64, 128), "bm", "tiles a GEMM block: its two warpgroups stacked "
         "along the tiles (128) or side by side along the channels (64: fewer pad rows where "
         "the tiles are few, twice U's bytes a MAC)"),
    Knob("block_n", 256, (128, 256, 512), "bn", "output channels a GEMM block (each "
         "warpgroup's share of them: one or two m64n128 wgmmas a k-step)", always=True),
    Knob("persist", False, (False, True), "pb",
         "persistent GEMM blocks (as many as stay resident), each looping over its share of "
         "the GEMM's blocks of outputs, the next one's copies under this one's M stores"),
    Knob("stages", 4, (2, 3, 4, 5, 6), "st", "operand chunks in flight (the bulk copies' ring)",
         always=True, axis=(3, 4)),
)


@knob_fields(KNOBS)
class F44Config(FamilyConfig):
    """The F(4x4) kernels' schedule: the GEMM block's width, its operand ring's depth and
    persistent GEMM blocks."""

    FAMILY = "f44"

    @property
    def needs_sm90a(self) -> bool:
        return True

    def threads(self) -> int:
        """Two consumer warpgroups and one producer warp."""
        return (CONSUMER_WARPS + 1) * WARP_SIZE

    def smem_bytes(self, wl: Conv2dWorkload) -> int:
        """templates/f44_nonfused.cu's kSmemBytes: `stages` chunks of V (block_m x 64) and U
        (block_n x 64) in fp16, and two mbarriers a stage."""
        stage = (self.block_m + self.block_n) * CHUNK_C * 2 + 2 * MBARRIER_BYTES
        return self.stages * stage

    def warpgroup_n(self) -> int:
        """A consumer warpgroup's columns: block_n, or half of it beside the other's."""
        return self.block_n * self.block_m // (2 * WARPGROUP_M)

    def items(self, wl: Conv2dWorkload) -> int:
        """The GEMM's blocks of outputs: block_m tiles x block_n channels of one tap."""
        return wl.k // self.block_n * self.padded_tiles(wl) // self.block_m * TAPS

    def padded_tiles(self, wl: Conv2dWorkload) -> int:
        """The GEMM's rows: the tiles, up to a whole block."""
        return -(-tiles(wl) // self.block_m) * self.block_m

    def itrans_items(self, wl: Conv2dWorkload) -> int:
        """templates/f44_nonfused.cu's kITransItems: each image's patches of 4 x 8 tiles and
        the padding rows' patches, each in slices of 16 channels (the persistent launch's most
        blocks)."""
        rows, cols = ITRANS_PATCH
        tiles_h, tiles_w = -(-wl.h // M), -(-wl.w // M)
        patches = wl.n * -(-tiles_h // rows) * -(-tiles_w // cols)
        padding = -(-(self.padded_tiles(wl) - tiles(wl)) // (rows * cols))
        return (patches + padding) * (wl.c // ITRANS_SLICE)

    def workspace_elements(self, wl: Conv2dWorkload) -> dict[str, int]:
        """fp16 elements of V (taps x padded tiles x C), M (x K) and U (taps x C x K)."""
        rows = TAPS * self.padded_tiles(wl)
        return {"V": rows * wl.c, "M": rows * wl.k, "U": TAPS * wl.c * wl.k}

    def workspace_bytes(self, wl: Conv2dWorkload) -> int:
        return 2 * sum(self.workspace_elements(wl).values())

    def grid(self, wl: Conv2dWorkload) -> tuple[int, int, int]:
        """A block an item (persistent: the launch takes the resident blocks)."""
        return self.items(wl), 1, 1

    def problems(self, wl: Conv2dWorkload, device: DeviceLimits | None = None) -> list[str]:
        out = []
        if (wl.dtype, wl.accum) not in PRECISIONS:
            out.append(f"f44 takes fp16 with fp32 accumulators, not {wl.dtype} with {wl.accum}")
        if wl.m != M:
            out.append(f"f44 computes {M}x{M} output pixels per tile (m={M}), not m={wl.m}")
        out += self.knob_problems()
        if wl.c % CHUNK_C or wl.k % self.block_n:
            out.append("f44: " + " and ".join(
                f"{name}={value} must be a multiple of {step}"
                for name, value, step in (("C", wl.c, CHUNK_C), ("K", wl.k, self.block_n))
                if value % step))
        if self.warpgroup_n() not in WARPGROUP_N:
            fits = (n * 2 * WARPGROUP_M // self.block_m for n in WARPGROUP_N)
            out.append(f"f44: block_m={self.block_m} with block_n={self.block_n} gives each "
                       f"warpgroup {self.warpgroup_n()} columns: choose block_n "
                       f"{' or '.join(map(str, fits))}")
        if self.workspace_bytes(wl) > MAX_WORKSPACE_BYTES:
            out.append(f"f44: V, M and U take {self.workspace_bytes(wl) / 2**20:.0f} MiB, over the "
                       f"{MAX_WORKSPACE_BYTES >> 20} MiB the family allows: split the batch "
                       f"N={wl.n} or the image")
        if not out and device is not None and device.sm != 90:
            return self.device_problems(wl, device)  # wgmma first: no stage count helps there
        if not out and device is not None and self.smem_bytes(wl) > device.smem_per_block:
            out.append(f"f44: shared memory {self.smem_bytes(wl)} B ({self.stages} stages of "
                       f"{self.block_m} + {self.block_n} rows of 64 channels) exceeds "
                       f"{device.name}'s {device.smem_per_block} B per block: fewer stages")
        return out or self.device_problems(wl, device)


def tiles(wl: Conv2dWorkload) -> int:
    """4x4 output tiles of all images."""
    return wl.n * -(-wl.h // M) * -(-wl.w // M)

