"""The TVM family's config: its knobs as data, and its shared-memory, thread and register model
(TVM-free)."""

from __future__ import annotations

from ...device import (
    MAX_SM_THREADS,
    MAX_THREAD_REGISTERS,
    REGISTER_FILE,
    WARP_SIZE,
    DeviceLimits,
    shared_residency,
    shared_wavefronts,
    shmem_aligned,
)
from ...workload import BYTES, Conv2dWorkload
from ..base import FamilyConfig, Knob, knob_fields

# WMMA shapes (M, N, K) that exist for both f16 and s8 operands.
FRAGMENTS = ((16, 16, 16), (32, 8, 16), (8, 32, 16))
# none: TVM's prototype untouched (the paper's "Tuned TVM"); syncfree: BGEMM barriers reduced to
# warp barriers; shmem / llc: ITrans+BGEMM fused through shared memory / L2 (PKF); full:
# ITrans+BGEMM+OTrans in one kernel, M staged through shared memory (beyond the paper).
FUSIONS = ("none", "syncfree", "shmem", "llc", "full")
# Rows of the staged M slice in the full kernel are padded by 8 accumulator elements where that
# costs no shared memory beyond the V/U staging the slice reuses: a row stride of 8 (mod 32)
# banks, resp. 4 (mod 8), puts the 4 (8) rows of one 128-byte store phase on disjoint banks
# (the 16-byte V/U pad left 2-way conflicts, 8.9 M of the 960^2 kernel's 23.7 M shared-store
# wavefronts). Wider rows that would cost a resident block per SM lost (0.61x where 3 blocks
# became 2), so they are used where they fit (experiments: pad_unroll_ab, m_rows_ab).
M_ROW_PAD = 8
ASYNC_U_MIN_TB_M = 32
FRAGMENT_ELEMENTS_PER_LANE = 8  # a 16x16 (or 32x8, 8x32) WMMA fragment over 32 lanes
# Bytes of one input load per ITrans thread (fp16: 8 channels, int8: 4) and pixels of an m=2
# input tile: a whole-tile trip holds ITRANS_LOAD_BYTES x 16 bytes per thread.
ITRANS_LOAD_BYTES = {"fp16": 16, "int8": 4}
M2_TILE_PIXELS = 16
# The input pipeline keeps a warp's tile arrays live through the MMA and OTrans, next to the
# accumulators; what the rest of the kernel needs besides them. Kernels within 32 registers of
# the limit kept from spilling and gained 1.04-1.36x; those above spilled and lost 0.88-0.95x
# (experiments: round_pipeline_ab).
PIPELINE_REGISTER_HEADROOM = 32

# Tiles are multiples of a fragment side (8 or 16; problems() checks which); the tuner's axes
# take the powers of two.
TILES = tuple(range(8, 129, 8))
TILE_AXIS = (8, 16, 32, 64, 128)


def _full(cfg: PkfConfig) -> bool:
    return cfg.fusion == "full"


KNOBS = (
    Knob("tb_m", 16, TILES, "tbm", "Winograd tiles per thread block", always=True,
         axis=TILE_AXIS),
    Knob("tb_n", 16, TILES, "tbn", "output channels per thread block", always=True,
         axis=TILE_AXIS),
    Knob("tb_k", 16, tuple(range(16, 513, 16)), "tbk",
         "input channels per step of the reduction loop", always=True,
         axis=(16, 32, 64, 128)),
    Knob("frag", (16, 16, 16), FRAGMENTS, "frag", "WMMA fragment MxNxK", always=True),
    Knob("fusion", "none", FUSIONS, "",
         "none: TVM's prototype (4 kernels); syncfree: BGEMM barriers made warp barriers; "
         "shmem / llc: ITrans+BGEMM fused through shared memory / L2 (PKF); full: "
         "ITrans+BGEMM+OTrans in one kernel", always=True),
    # 16-byte copies are legal for every tb_k and narrower ones only add instructions.
    Knob("vec", 16, (1, 2, 4, 8, 16), "vec", "bytes per vectorised copy lane", always=True,
         axis=(16,)),
    # The row offset changes which banks the WMMA loads of a fragment's rows hit.
    Knob("pad", 16, (0, 16, 32, 48, 64), "pad",
         "bytes of padding per shared-memory row (bank-conflict offset)", always=True,
         axis=(0, 16)),
    Knob("u_l2", False, (False, True), "ul2",
         "load the BGEMM's B fragments (U) from global memory (L2) instead of staging them"),
    Knob("persist", False, (False, True), "pb",
         "full fusion with tb_k = C: stage U once per block, loop the block over tile blocks",
         requires=((_full, "needs fusion full"),
                   (lambda c: not c.u_l2, "needs U in shared memory (drop u_l2)"))),
    Knob("groups", 1, tuple(range(1, 9)), "g",
         "persistent blocks: warp groups sharing U, each with its own V/M staging",
         axis=(1, 2, 3, 4), requires=((lambda c: c.persist, "needs persist (pb)"),
                                      (lambda c: c.k_split == 1, "does not go with k_split"))),
    Knob("k_split", 1, (1, 2, 3, 4, 6, 8), "ks",
         "persistent m=2 blocks: warp groups sharing each tile block, one channel block each",
         axis=(1, 2, 4), requires=((lambda c: c.persist, "needs persist (pb)"),)),
    # 2 vectorises M loads and y stores, and can cost a block per SM in registers.
    Knob("ot_channels", 1, (1, 2), "oc", "adjacent output channels per OTrans thread"),
    Knob("m_rounds", 1, (1, 2, 4), "mr",
         "full fusion: M staged and transformed in rounds of tb_n / m_rounds channels",
         axis=(1, 2),
         requires=((_full, "needs fusion full"),
                   (lambda c: c.m_channels % c.frag[1] == 0 and
                    c.m_channels % c.ot_channels == 0,
                    "needs tb_n / m_rounds a multiple of the fragment's N and of ot_channels"))),
    Knob("min_blocks", 0, tuple(range(0, 17)), "lb",
         "full fusion: blocks per SM __launch_bounds__ asks ptxas to fit (0: none; may spill)",
         axis=(0,), requires=((_full, "needs fusion full"),
                              (lambda c: c.min_blocks >= 2, "is 0 (none) or at least 2"))),
)


@knob_fields(KNOBS)
class PkfConfig(FamilyConfig):
    """The TVM prototype's schedule knobs (TB_* in the paper's notation) and the
    reconstructor's fusion and persistence."""

    FAMILY = "pkf"

    @property
    def async_u(self) -> bool:
        """Whether the full kernel stages U with cp.async ahead of ITrans: 1.03-1.37x with
        tb_m = 32 but 0.73-0.90x with 16-tile blocks and tb_k = 64 (experiments: async_u_ab)."""
        return self.tb_m >= ASYNC_U_MIN_TB_M

    @property
    def m_channels(self) -> int:
        """Output channels of one round of the full kernel's M staging and OTrans."""
        return self.tb_n // self.m_rounds

    def accumulator_fragments(self, wl: Conv2dWorkload) -> int:
        """A warp's accumulator fragments: all alpha tap rows of its tap column."""
        return wl.alpha * (self.tb_m // self.frag[0]) * (self.tb_n // self.frag[1])

    def accumulator_registers(self, wl: Conv2dWorkload) -> int:
        """Registers per thread of a warp's accumulator fragments."""
        return self.accumulator_fragments(wl) * FRAGMENT_ELEMENTS_PER_LANE * BYTES[wl.accum] // 4

    def threads(self, wl: Conv2dWorkload) -> int:
        """Threads per block: a warp per tap column, per warp group."""
        return WARP_SIZE * wl.alpha * self.k_split * self.groups

    def thread_registers(self, wl: Conv2dWorkload) -> int:
        """Registers each thread may use with one block per SM."""
        return min(MAX_THREAD_REGISTERS, REGISTER_FILE // self.threads(wl))

    def blocks(self, wl: Conv2dWorkload) -> int:
        return wl.ntiles_padded(self.tb_m) // self.tb_m * (wl.k // (self.tb_n * self.k_split))

    def pipelines_input(self, wl: Conv2dWorkload) -> bool:
        """Whether the persistent m=2 kernel loads the next tile block's input tiles before
        the MMA (where ITrans takes whole tiles): where a warp's tile arrays and accumulators
        leave PIPELINE_REGISTER_HEADROOM registers per thread."""
        if not (self.persist and wl.m == 2):
            return False
        channels = ITRANS_LOAD_BYTES[wl.dtype] // BYTES[wl.dtype]
        trips = self.tb_m * self.tb_k // (WARP_SIZE * channels)
        rounds = -(-trips // (wl.alpha * self.k_split))
        tile_registers = rounds * M2_TILE_PIXELS * ITRANS_LOAD_BYTES[wl.dtype] // 4
        return (tile_registers + self.accumulator_registers(wl)
                <= self.thread_registers(wl) - PIPELINE_REGISTER_HEADROOM)

    def can_persist(self, wl: Conv2dWorkload) -> bool:
        """Whether the persistent full kernel applies: one channel chunk and U staged in shared
        memory (staged once per block), the M slice within the V staging (U stays intact)."""
        # TVM lays the smaller staging buffer out first: U before V when tb_n < tb_m, and the M
        # slice (from byte 0) would then overwrite U (the persist pass checks the layout).
        return (self.fusion == "full" and not self.u_l2 and self.tb_k == wl.c
                and self.tb_n >= self.tb_m
                and self._m_bytes(wl, self._narrow_m_row(wl)) <= self._v_bytes(wl))

    def _staging_bytes(self, wl: Conv2dWorkload) -> int:
        """V and U slices, and one more V slice per further warp group."""
        return self._operand_bytes(wl) + (self.groups - 1) * self._v_bytes(wl)

    def _operand_bytes(self, wl: Conv2dWorkload) -> int:
        staged_rows = self.tb_m + (0 if self.u_l2 else self.tb_n)
        return wl.alpha * wl.alpha * staged_rows * self._row_bytes(wl)

    def _row_bytes(self, wl: Conv2dWorkload) -> int:
        return self.tb_k * BYTES[wl.dtype] + self.pad

    def _v_bytes(self, wl: Conv2dWorkload) -> int:
        return wl.alpha * wl.alpha * self.tb_m * self._row_bytes(wl)

    def _m_bytes(self, wl: Conv2dWorkload, row_elems: int) -> int:
        return wl.alpha * wl.alpha * self.tb_m * row_elems * BYTES[wl.accum]

    def _narrow_m_row(self, wl: Conv2dWorkload) -> int:
        return self.m_channels + self.pad // BYTES[wl.accum]

    def m_row_elems(self, wl: Conv2dWorkload) -> int:
        """Row length of the staged M slice: m_channels plus M_ROW_PAD in the full kernel where
        that fits in the staging memory it reuses (V alone when persistent, as U stays) or, not
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
        access = self.ot_channels * BYTES[wl.accum]
        row_bytes = self.m_row_elems(wl) * BYTES[wl.accum]

        def wavefronts(step: int) -> int:
            return shared_wavefronts([r * step * row_bytes + lane * access
                                      for r in range(rows) for lane in range(lanes_per_row)],
                                     access)
        return wl.alpha if wavefronts(wl.alpha) < wavefronts(1) else 1

    def smem_bytes(self, wl: Conv2dWorkload) -> int:
        """Dynamic shared memory of the BGEMM (or fused) block: padded V and U slices; for full
        fusion at least the padded M slice, which reuses that memory after the channel loop;
        one more V slice per further warp group; with a channel split, V or every group's M
        slice (whichever is larger), then every group's U slice (the persist pass)."""
        operands = self._staging_bytes(wl)
        if self.fusion != "full":
            return operands
        m_slice = self._m_bytes(wl, self.m_row_elems(wl))
        if self.k_split != 1:
            u_slice = operands - self._v_bytes(wl)
            below_u = max(self._v_bytes(wl), self.k_split * shmem_aligned(m_slice))
            return shmem_aligned(below_u) + self.k_split * u_slice
        return max(operands, m_slice)

    def problems(self, wl: Conv2dWorkload, device: DeviceLimits | None = None) -> list[str]:
        out = self.knob_problems()
        if out:
            return out
        if wl.dtype not in ("fp16", "int8"):
            return [f"pkf: {wl.dtype} has no Tensor Core path: use fp16 or int8"]
        if (wl.dtype, wl.accum) in (("int8", "fp16"), ("int8", "fp32")):
            return [f"pkf: {wl.dtype} with {wl.accum} accumulators runs in the lane (fp16) or "
                    "f23 (fp32) family: use accum int32 for the int8 MMA kernels"]
        if wl.c % self.frag[2]:
            out.append(f"pkf: C={wl.c} is not a multiple of {self.frag[2]} (WMMA K)")
        for knob, frag in (("tb_m", self.frag[0]), ("tb_n", self.frag[1]), ("tb_k", self.frag[2])):
            if getattr(self, knob) % frag:
                out.append(f"pkf: {knob}={getattr(self, knob)} is not a multiple of the "
                           f"fragment's {frag}")
        if wl.k % self.tb_n:
            out.append(f"pkf: K={wl.k} is not a multiple of tb_n={self.tb_n}")
        if wl.c % self.tb_k:
            out.append(f"pkf: C={wl.c} is not a multiple of tb_k={self.tb_k}")
        if self.vec % BYTES[wl.dtype] or (self.tb_k * BYTES[wl.dtype]) % self.vec:
            out.append(f"pkf: vec={self.vec} bytes must divide a tb_k row of {wl.dtype}")
        if self.persist and not self.can_persist(wl):
            out.append(
                f"pkf: persist (pb) needs tb_k = C={wl.c}, tb_n >= tb_m and an M slice "
                f"({self._m_bytes(wl, self._narrow_m_row(wl))} B) within the V staging "
                f"({self._v_bytes(wl)} B): drop it or change the tiles")
        if self.groups != 1 and self.threads(wl) > 1024:
            out.append(f"pkf: groups={self.groups} makes {self.threads(wl)} threads per block "
                       f"({WARP_SIZE * wl.alpha} per group at m={wl.m}), more than 1024")
        if self.k_split != 1 and not (wl.m == 2 and wl.k % (self.tb_n * self.k_split) == 0
                                      and self.threads(wl) <= 1024):
            out.append(f"pkf: k_split={self.k_split} needs m=2 (whole input tiles), K={wl.k} a "
                       f"multiple of tb_n x k_split and at most 1024 threads per block")
        if self.min_blocks and self.threads(wl) * self.min_blocks > MAX_SM_THREADS:
            out.append(f"pkf: min_blocks={self.min_blocks} blocks of {self.threads(wl)} threads "
                       f"exceed the {MAX_SM_THREADS} threads of an SM")
        return out or self.device_problems(wl, device)

    def device_problems(self, wl: Conv2dWorkload, device: DeviceLimits | None) -> list[str]:
        """Also the OTrans kernel of the unfused kernels, which stages the block's M slice
        (alpha^2 x tb_m x m_channels accumulators) in shared memory."""
        out = super().device_problems(wl, device)
        staged = self._m_bytes(wl, self.m_row_elems(wl))
        if self.fusion != "full" and device is not None and staged > device.smem_per_block:
            out.append(f"pkf: the OTrans kernel's M slice ({staged} B) exceeds {device.name}'s "
                       f"{device.smem_per_block} B per block: a smaller tb_m or tb_n")
        return out
