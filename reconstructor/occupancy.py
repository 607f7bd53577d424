"""Tell ptxas how many blocks share an SM (`__launch_bounds__(threads, blocks)`) where shared
memory already fixes that count and the hint leaves ptxas's register ceiling where it was."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import ReconstructError
from .launch import Launch
from .source import Kernel

REGISTERS_PER_SM = 65536
MAX_REGISTERS_PER_THREAD = 255


@dataclass(frozen=True)
class SmLimits:
    """Per-SM residency limits of one architecture (CUDA programming guide, table 21)."""

    shared_bytes: int
    reserved_per_block: int  # shared memory the system keeps per resident block
    threads: int
    blocks: int


SM_LIMITS = {
    "sm_80": SmLimits(164 * 1024, 1024, 2048, 32),
    "sm_86": SmLimits(100 * 1024, 1024, 1536, 16),
    "sm_89": SmLimits(100 * 1024, 1024, 1536, 24),
    "sm_90": SmLimits(228 * 1024, 1024, 2048, 32),
}


def resident_blocks(threads: int, shared_bytes: int, limits: SmLimits) -> int:
    """Blocks per SM that shared memory and thread slots allow (registers aside)."""
    by_shared = limits.shared_bytes // (shared_bytes + limits.reserved_per_block)
    return max(1, min(by_shared, limits.threads // threads, limits.blocks))


def register_ceiling(threads: int, blocks: int) -> int:
    """Registers per thread ptxas may use when `blocks` blocks of `threads` must fit an SM."""
    return min(MAX_REGISTERS_PER_THREAD, REGISTERS_PER_SM // (threads * blocks))


def hint_resident_blocks(kernel: Kernel, launch: Launch, arch: str) -> Kernel:
    """The kernel with min_blocks set to its shared-memory residency, where that keeps the
    register ceiling of `__launch_bounds__(threads)` alone; otherwise unchanged.

    Without the count ptxas budgets registers as if for more blocks than shared memory admits
    and loads fragments just before their MMA: the 960^2 fp16-accumulator kernel (one block
    per SM) used 180 registers and its HMMAs waited on their ldmatrix 7 instructions back
    (median); told 1 block, 232 registers and 48 (bench/results/h100/min_blocks_ab/).
    Where the count would lower the ceiling (three 128-thread blocks: 168), ptxas spills."""
    if arch not in SM_LIMITS:
        raise ReconstructError(f"hint_resident_blocks: unknown arch {arch!r}; known: "
                               f"{', '.join(sorted(SM_LIMITS))}")
    threads = launch.block[0] * launch.block[1] * launch.block[2]
    blocks = resident_blocks(threads, launch.shared_bytes, SM_LIMITS[arch])
    if register_ceiling(threads, blocks) < register_ceiling(threads, 1):
        return kernel
    return replace(kernel, min_blocks=blocks)
