"""The reconstructor end to end: prototype source + launches -> the source and launches to run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import regex

from .async_copy import async_u_staging, stages_u
from .errors import ReconstructError
from .fragment_order import fragment_order_u, orders_u
from .full import fold_otrans_sums, fuse_full
from .identify import identify_stages
from .input_pipeline import pipeline_input_loads
from .launch import Launch, check_launch
from .passes import SYNCTHREADS, fuse_llc, fuse_shmem, strip_warp_barriers
from .persist import persist_blocks
from .rounding import round_input_taps
from .source import CudaSource, Kernel, render_source, split_kernels
from .specialise import specialise_fused, specialise_itrans
from .unroll import unroll_itrans, unroll_otrans
from .whole_tiles import takes_whole_tiles, whole_tile_itrans

# none: the prototype as TVM wrote it (the paper's "Tuned TVM"); syncfree: plus the BGEMM's
# block barriers turned into warp barriers; shmem / llc: plus the PKF fusion of ITrans+BGEMM;
# full: ITrans+BGEMM+OTrans in one kernel (beyond the paper).
FUSIONS = ("none", "syncfree", "shmem", "llc", "full")
_FUSE = {"shmem": fuse_shmem, "llc": fuse_llc}
# Warp specialisation copies ITrans's code once per warp (alpha times). On the H100 it made the
# full kernel 1.18-1.27x faster for m=2 (alpha 4) but 1.2-1.5x slower for m=4 (alpha 6), although
# m=4 then executed 23% fewer instructions: 82 KB of SASS, and the cycles per issued instruction
# rose from 4.95 to 8.56 (bench/results/h100/specialise_ab/, docs/sass/counts.txt). So by
# default only up to alpha 4.
SPECIALISE_MAX_ALPHA = 4
# The full kernel's specialised fp16 ITrans tile loop runs `#pragma unroll 4` (now only with
# several channel chunks; with one, whole tiles below take its place): on the H100 that was
# 1.08-1.26x faster at 960^2 m=2, 1.00-1.10x at 224^2 (bench/results/h100/pad_unroll_ab/
# ab_5d55812.jsonl; 2 gave less, whole loops less with U from L2, unroll_ab/). Not for int8 m=2
# (0.88-0.96x) nor for m=4 (unspecialised: fp16 0.96x, int8 168 -> 254 registers; specialised:
# 82 KB of SASS already).
ITRANS_UNROLL = 4
# With one channel chunk (TB_K = C) the m=2 full kernel's warps transform whole input tiles
# instead of one tap column each (reconstructor.whole_tiles), in place of the tile loop's
# unrolling: on the H100 1.14-1.16x for the 4-warp fp16 32/64 kernels (960^2 302.2 -> 259.5
# us), 1.05x and 1.12x for 2- and 4-group kernels (bench/results/h100/whole_tiles_ab/, same
# run); with several chunks where a warp's tiles fit whole_tiles.CHUNKED_TILE_BYTES per thread
# (whole_tiles_chunked/). int8 too, 0.97-1.47x where it applies but 0.83x for 16/64/16
# (whole_tiles_int8/); its kernels without whole tiles keep the tile loop rolled.
# The full kernel's OTrans loop is unrolled at alpha 4 (m=2): its residual loads then overlap,
# which matters most where one block fills an SM (fp16 accumulators, TB_N 64: 221 KB of shared
# memory, 4 warps). Hand-edited A/Bs on the H100 (bench/results/h100/otrans_unroll_ab/): by 4,
# with the epilogue 0.99-1.48x (960^2 fp16 accumulators 791 -> 534 us, 224^2 1.37x), without it
# 0.98-1.04x; by 8 a further 1.00-1.10x with the epilogue (960^2 528 -> 479 us) but 0.99x
# without; whole loops less. Not for m=4 (int8 m=4 0.92x by 4).
OTRANS_UNROLL = 4
OTRANS_UNROLL_RESIDUAL = 8  # when OTrans reads a residual


def otrans_unroll_factor(full: Kernel) -> int:
    """How far the full kernel's OTrans loop is unrolled: further when it loads a residual."""
    residual = any(p.name == "residual_ptr" for p in full.params)
    return OTRANS_UNROLL_RESIDUAL if residual else OTRANS_UNROLL


def _accumulator_type(bgemm: Kernel) -> str:
    """Element type of the BGEMM's WMMA accumulators: float, half or int."""
    found = set(regex.findall(r"wmma::accumulator, \d+, \d+, \d+, (\w+)>", bgemm.body))
    if len(found) != 1:
        raise ReconstructError(f"{bgemm.name}: expected one WMMA accumulator type, found "
                               f"{sorted(found)}")
    return found.pop()


@dataclass(frozen=True)
class Reconstructed:
    """Source to compile; launches in the input's dict format, weight (once) and forward."""

    source: str
    weight_launches: list[dict]
    forward_launches: list[dict]
    removed_barriers: list[str]


def reconstruct(source: str, launches: Sequence[Mapping], fusion: str,
                specialise: bool | None = None, persist: bool = False,
                async_u: bool = True, groups: int = 1, k_split: int = 1,
                input_pipeline: bool = False, u_rows: int = 0,
                min_blocks: int = 0) -> Reconstructed:
    """Split, identify, strip the BGEMM's barriers (unless fusion is none), fuse, and give each
    warp its own ITrans code (reconstructor.specialise): specialise None (default) where that
    pays (alpha <= SPECIALISE_MAX_ALPHA), True always, False never. persist: the full kernel
    stages U once and loops over its tile blocks (reconstructor.persist), in groups warp groups
    sharing U or k_split warp groups sharing each tile block (whole input tiles needed), and
    with input_pipeline, where ITrans takes whole tiles, issues the next tile block's input
    loads before the MMA (reconstructor.input_pipeline); otherwise, with async_u, it stages U
    with cp.async ahead of ITrans (reconstructor.async_copy). u_rows (taps x K, 0: unknown):
    a kernel loading 8-bit B fragments straight from U reads U in fragment order, written by
    one more weight kernel (reconstructor.fragment_order), unless fusion is none. min_blocks
    (full fusion, 0: none): the blocks per SM the full kernel's __launch_bounds__ asks ptxas
    to fit in registers."""
    if fusion not in FUSIONS:
        raise ReconstructError(f"reconstruct: unknown fusion {fusion!r}; choose from {FUSIONS}")
    if persist and fusion != "full":
        raise ReconstructError(f"reconstruct: persistent blocks need fusion full, not {fusion!r}")
    if groups != 1 and not persist:
        raise ReconstructError(f"reconstruct: {groups} warp groups need persistent blocks")
    if min_blocks and fusion != "full":
        raise ReconstructError(f"reconstruct: blocks per SM for ptxas apply to the full kernel, "
                               f"not fusion {fusion!r}")
    if k_split != 1 and not persist:
        raise ReconstructError(f"reconstruct: a channel split over {k_split} warp groups needs "
                               "persistent blocks")
    cuda = split_kernels(source)
    by_name = {}
    for entry in launches:
        launch = Launch.from_dict(entry)
        by_name[launch.name] = launch
    for kernel in cuda.kernels:
        if kernel.name not in by_name:
            raise ReconstructError(f"reconstruct: no launch given for kernel {kernel.name}")
        check_launch(kernel, by_name[kernel.name])
    stages = identify_stages(cuda.kernels)
    # int8: V rounded by the magic number, bit-equal (reconstructor.rounding); none keeps TVM's.
    itrans = stages.itrans if fusion == "none" else round_input_taps(stages.itrans)
    forward: list[tuple[Kernel, Launch]] = [(itrans, by_name[itrans.name]),
                                            (stages.bgemm, by_name[stages.bgemm.name])]
    removed: list[str] = []
    if fusion != "none":
        bgemm = strip_warp_barriers(stages.bgemm)
        removed = [f"{bgemm.name}: __syncthreads() #{i} -> __syncwarp()"
                   for i in range(stages.bgemm.body.count(SYNCTHREADS))]
        forward[1] = (bgemm, forward[1][1])
    otrans = (stages.otrans, by_name[stages.otrans.name])
    if fusion in _FUSE:
        forward = [_FUSE[fusion](itrans, forward[1][0], forward[0][1], forward[1][1])]
    # The full kernel's m=2 passes (alpha 4 warps); the fused kernel launches as the BGEMM.
    full_m2 = fusion == "full" and by_name[stages.bgemm.name].block[1] <= SPECIALISE_MAX_ALPHA
    if fusion == "full":
        # A^T in registers (m=2): on the H100 1.02-1.09x at N=1, 0.96-1.04x at N=32/128, error
        # unchanged with fp32 accumulators (bench/results/h100/rows_ab/). Not for int8, whose
        # OTrans dequantises each tap first; not for fp16 accumulators, where the combined rows
        # are rounded to fp16 once more (relative L2 +10%: 9.6e-4 -> 1.04e-3 at C=128).
        rows = full_m2 and _accumulator_type(stages.bgemm) == "float"
        full, launch = fuse_full(itrans, forward[1][0], stages.otrans, forward[0][1],
                                 forward[1][1], otrans[1], rows_in_registers=rows)
        # H100, hand-edited A/B (bench/results/h100/fold_fill_ab/): 1.01-1.02x for the
        # one-group 32/64 kernels, whose OTrans is issue-bound; within +-1% elsewhere.
        forward = [(fold_otrans_sums(full), launch)]
    else:
        forward.append(otrans)
    kernel, first_launch = forward[0]
    if specialise is None:
        specialise = first_launch.block[1] <= SPECIALISE_MAX_ALPHA
    if specialise and fusion != "none":
        # After fusion: the fusion passes evaluate ITrans's indices over threadIdx.y.
        by_warp = specialise_itrans if fusion == "syncfree" else specialise_fused
        forward[0] = (by_warp(kernel, first_launch), first_launch)
    whole_tiles = full_m2 and specialise and takes_whole_tiles(forward[0][0])
    if full_m2 and specialise:
        if whole_tiles:
            forward[0] = (whole_tile_itrans(forward[0][0], first_launch.block[1], k_split),
                          first_launch)
        elif stages.itrans.element_types() == {"half"}:
            forward[0] = (unroll_itrans(forward[0][0], ITRANS_UNROLL), first_launch)
    if full_m2:
        forward[0] = (unroll_otrans(forward[0][0], otrans_unroll_factor(forward[0][0])),
                      first_launch)
    if async_u and fusion == "full" and not persist and stages_u(forward[0][0]):
        forward[0] = (async_u_staging(forward[0][0]), first_launch)
    if persist:  # last: the passes above find ITrans and OTrans by their place in the body
        # The M slice is OTrans's own staging layout (fuse_full), so at most OTrans's smem.
        forward[0] = persist_blocks(*forward[0], m_bytes=otrans[1].shared_bytes, groups=groups,
                                    k_split=k_split)
        if whole_tiles and input_pipeline:
            forward[0] = (pipeline_input_loads(forward[0][0]), forward[0][1])
    weight = [(k, by_name[k.name]) for k in stages.ktrans]
    ordering = [i for i, (k, _) in enumerate(forward) if orders_u(k)] if (
        u_rows and fusion != "none") else []
    if ordering:
        # H100, same-run A/B (bench/results/h100/u_order_ab/): int8 ul2 kernels 1.01-1.65x,
        # median 1.25x (960^2 16/64/64 308.7 -> 242.3 us), errors bit-equal.
        forward[ordering[0]], weight = fragment_order_u(forward[ordering[0]], weight, u_rows)
    if min_blocks:
        forward[0] = (replace(forward[0][0], min_blocks=min_blocks), forward[0][1])
    kernels = tuple(k for k, _ in (*weight, *forward))
    return Reconstructed(
        render_source(CudaSource(cuda.preamble, kernels)),
        [launch.to_dict() for _, launch in weight],
        [launch.to_dict() for _, launch in forward],
        removed,
    )
