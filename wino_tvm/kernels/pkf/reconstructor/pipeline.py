"""The reconstructor end to end: prototype source + launches -> the source and launches to run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import regex

from .async_copy import async_u_staging, stages_u
from .errors import ReconstructError
from .fragment_order import fragment_order_u, orders_u
from .full import fold_otrans_sums, fuse_full
from .identify import Stages, identify_stages
from .input_pipeline import pipeline_input_loads
from .launch import Launch, check_launch
from .passes import fuse_llc, fuse_shmem, strip_warp_barriers
from .persist import persist_blocks
from .rounding import round_input_taps
from .source import CudaSource, Kernel, render_source, split_kernels
from .specialise import specialise_fused, specialise_itrans
from .text import SYNCTHREADS
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
# rose from 4.95 to 8.56 (experiments: specialise_ab, sass_counts). So by
# default only up to alpha 4.
SPECIALISE_MAX_ALPHA = 4
# The full kernel's specialised fp16 ITrans tile loop runs `#pragma unroll 4` (now only with
# several channel chunks; with one, whole tiles below take its place): on the H100 that was
# 1.08-1.26x faster at 960^2 m=2, 1.00-1.10x at 224^2 (experiments: pad_unroll_ab;
# 2 gave less, whole loops less with U from L2: unroll_ab). Not for int8 m=2
# (0.88-0.96x) nor for m=4 (unspecialised: fp16 0.96x, int8 168 -> 254 registers; specialised:
# 82 KB of SASS already).
ITRANS_UNROLL = 4
# With one channel chunk (TB_K = C) the m=2 full kernel's warps transform whole input tiles
# instead of one tap column each (reconstructor.whole_tiles), in place of the tile loop's
# unrolling: on the H100 1.14-1.16x for the 4-warp fp16 32/64 kernels (960^2 302.2 -> 259.5
# us), 1.05x and 1.12x for 2- and 4-group kernels (experiments: whole_tiles_ab, same
# run); with several chunks where a warp's tiles fit whole_tiles.CHUNKED_TILE_BYTES per thread
# (experiments: whole_tiles_chunked). int8 too, 0.97-1.47x where it applies but 0.83x for 16/64/16
# (experiments: whole_tiles_int8); its kernels without whole tiles keep the tile loop rolled.
# The full kernel's OTrans loop is unrolled at alpha 4 (m=2): its residual loads then overlap,
# which matters most where one block fills an SM (fp16 accumulators, TB_N 64: 221 KB of shared
# memory, 4 warps). Hand-edited A/Bs on the H100 (experiments: otrans_unroll_ab): by 4,
# with the epilogue 0.99-1.48x (960^2 fp16 accumulators 791 -> 534 us, 224^2 1.37x), without it
# 0.98-1.04x; by 8 a further 1.00-1.10x with the epilogue (960^2 528 -> 479 us) but 0.99x
# without; whole loops less. Not for m=4 (int8 m=4 0.92x by 4).
OTRANS_UNROLL = 4
OTRANS_UNROLL_RESIDUAL = 8  # when OTrans reads a residual


def otrans_unroll_factor(full: Kernel) -> int:
    """How far the full kernel's OTrans loop is unrolled: further when it loads a residual."""
    residual = any(p.name == "residual_ptr" for p in full.params)
    return OTRANS_UNROLL_RESIDUAL if residual else OTRANS_UNROLL


def accumulator_type(bgemm: Kernel) -> str:
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


@dataclass(frozen=True)
class Options:
    """What the passes do. specialise: give each warp its own ITrans code, None (default) where
    that pays (alpha <= SPECIALISE_MAX_ALPHA). persist: the full kernel stages U once and loops
    over its tile blocks, in `groups` warp groups sharing U or `k_split` warp groups sharing each
    tile block (whole input tiles needed), and with input_pipeline, where ITrans takes whole
    tiles, issues the next tile block's input loads before the MMA; otherwise, with async_u, it
    stages U with cp.async ahead of ITrans. u_rows (taps x K, 0: unknown): a kernel loading
    8-bit B fragments straight from U reads U in fragment order, written by one more weight
    kernel, unless fusion is none. min_blocks (full fusion, 0: none): the blocks per SM the
    full kernel's __launch_bounds__ asks ptxas to fit in registers."""

    fusion: str
    specialise: bool | None = None
    persist: bool = False
    async_u: bool = True
    groups: int = 1
    k_split: int = 1
    input_pipeline: bool = False
    u_rows: int = 0
    min_blocks: int = 0


def _check(options: Options) -> None:
    fusion = options.fusion
    if fusion not in FUSIONS:
        raise ReconstructError(f"reconstruct: unknown fusion {fusion!r}; choose from {FUSIONS}")
    if options.persist and fusion != "full":
        raise ReconstructError(f"reconstruct: persistent blocks need fusion full, not {fusion!r}")
    if options.groups != 1 and not options.persist:
        raise ReconstructError(f"reconstruct: {options.groups} warp groups need persistent "
                               "blocks")
    if options.min_blocks and fusion != "full":
        raise ReconstructError(f"reconstruct: blocks per SM for ptxas apply to the full kernel, "
                               f"not fusion {fusion!r}")
    if options.k_split != 1 and not options.persist:
        raise ReconstructError(f"reconstruct: a channel split over {options.k_split} warp groups "
                               "needs persistent blocks")


@dataclass(frozen=True)
class State:
    """What the passes rewrite: the forward kernels with their launches (the first is the
    fused or ITrans kernel), the weight kernels, the BGEMM barriers made warp barriers, and
    what earlier passes established."""

    stages: Stages
    launches: Mapping[str, Launch]
    forward: tuple[tuple[Kernel, Launch], ...]
    weight: tuple[tuple[Kernel, Launch], ...]
    removed: tuple[str, ...] = ()
    full_m2: bool = False  # the full kernel's m=2 passes apply (alpha 4 warps)
    specialised: bool = False  # each warp has its own ITrans code
    whole_tiles: bool = False  # ITrans's warps transform whole input tiles

    @classmethod
    def start(cls, stages: Stages, launches: Mapping[str, Launch]) -> State:
        """The prototype's kernels: ITrans and BGEMM forward (OTrans joins once the fusion
        passes have run), KTrans for the weights."""
        def paired(kernels: Sequence[Kernel]) -> tuple[tuple[Kernel, Launch], ...]:
            return tuple((k, launches[k.name]) for k in kernels)

        return cls(stages, launches, paired((stages.itrans, stages.bgemm)), paired(stages.ktrans))

    @property
    def first(self) -> Kernel:
        return self.forward[0][0]

    @property
    def otrans(self) -> tuple[Kernel, Launch]:
        return self.stages.otrans, self.launches[self.stages.otrans.name]

    def with_first(self, kernel: Kernel, launch: Launch | None = None, **changes) -> State:
        """The state with the first forward kernel (and launch) replaced."""
        first = (kernel, launch or self.forward[0][1])
        return replace(self, forward=(first, *self.forward[1:]), **changes)


@dataclass(frozen=True)
class Pass:
    """One step of the reconstructor: `run` rewrites the state where `applies` holds."""

    name: str
    applies: Callable[[Options, State], bool]
    run: Callable[[State, Options], State]


def _fused(options: Options, state: State) -> bool:
    return options.fusion != "none"


def _round_taps(state: State, options: Options) -> State:
    # int8: V rounded by the magic number, bit-equal (reconstructor.rounding); none keeps TVM's.
    return state.with_first(round_input_taps(state.first))


def _warp_barriers(state: State, options: Options) -> State:
    (bgemm, launch), rest = state.forward[1], state.forward[2:]
    removed = tuple(f"{bgemm.name}: __syncthreads() #{i} -> __syncwarp()"
                    for i in range(bgemm.body.count(SYNCTHREADS)))
    return replace(state, forward=(state.forward[0], (strip_warp_barriers(bgemm), launch), *rest),
                   removed=removed)


def _pkf_fusion(state: State, options: Options) -> State:
    (itrans, it_launch), (bgemm, bg_launch) = state.forward
    return replace(state, forward=(_FUSE[options.fusion](itrans, bgemm, it_launch, bg_launch),))


def _full_fusion(state: State, options: Options) -> State:
    (itrans, it_launch), (bgemm, bg_launch) = state.forward
    # The full kernel's m=2 passes (alpha 4 warps); the fused kernel launches as the BGEMM.
    full_m2 = bg_launch.block[1] <= SPECIALISE_MAX_ALPHA
    # A^T in registers (m=2): on the H100 1.02-1.09x at N=1, 0.96-1.04x at N=32/128, error
    # unchanged with fp32 accumulators (experiments: rows_ab). Not for int8, whose OTrans
    # dequantises each tap first; not for fp16 accumulators, where the combined rows are
    # rounded to fp16 once more (relative L2 +10%: 9.6e-4 -> 1.04e-3 at C=128).
    rows = full_m2 and accumulator_type(state.stages.bgemm) == "float"
    full, launch = fuse_full(itrans, bgemm, state.stages.otrans, it_launch, bg_launch,
                             state.otrans[1], rows_in_registers=rows)
    # H100, hand-edited A/B (experiments: fold_fill_ab): 1.01-1.02x for the one-group 32/64
    # kernels, whose OTrans is issue-bound; within +-1% elsewhere.
    return replace(state, forward=((fold_otrans_sums(full), launch),), full_m2=full_m2)


def _separate_otrans(state: State, options: Options) -> State:
    return replace(state, forward=(*state.forward, state.otrans))


def _pays_to_specialise(options: Options, state: State) -> bool:
    specialise = options.specialise
    if specialise is None:  # by default where it pays
        specialise = state.forward[0][1].block[1] <= SPECIALISE_MAX_ALPHA
    return specialise and options.fusion != "none"


def _specialise(state: State, options: Options) -> State:
    # After fusion: the fusion passes evaluate ITrans's indices over threadIdx.y.
    by_warp = specialise_itrans if options.fusion == "syncfree" else specialise_fused
    return state.with_first(by_warp(*state.forward[0]), specialised=True)


def _takes_whole_tiles(options: Options, state: State) -> bool:
    return state.full_m2 and state.specialised and takes_whole_tiles(state.first)


def _whole_tiles(state: State, options: Options) -> State:
    kernel = whole_tile_itrans(state.first, state.forward[0][1].block[1], options.k_split)
    return state.with_first(kernel, whole_tiles=True)


def _unrolls_itrans(options: Options, state: State) -> bool:
    return (state.full_m2 and state.specialised and not state.whole_tiles
            and state.stages.itrans.element_types() == {"half"})


def _unroll_itrans(state: State, options: Options) -> State:
    return state.with_first(unroll_itrans(state.first, ITRANS_UNROLL))


def _unroll_otrans(state: State, options: Options) -> State:
    return state.with_first(unroll_otrans(state.first, otrans_unroll_factor(state.first)))


def _stages_u_async(options: Options, state: State) -> bool:
    return (options.async_u and options.fusion == "full" and not options.persist
            and stages_u(state.first))


def _async_u(state: State, options: Options) -> State:
    return state.with_first(async_u_staging(state.first))


def _persist(state: State, options: Options) -> State:
    # The M slice is OTrans's own staging layout (fuse_full), so at most OTrans's smem.
    first = persist_blocks(*state.forward[0], m_bytes=state.otrans[1].shared_bytes,
                           groups=options.groups, k_split=options.k_split)
    return state.with_first(*first)


def _input_pipeline(state: State, options: Options) -> State:
    return state.with_first(pipeline_input_loads(state.first))


def _orders_u(options: Options, state: State) -> bool:
    return bool(options.u_rows) and _fused(options, state) and any(
        orders_u(k) for k, _ in state.forward)


def _fragment_order(state: State, options: Options) -> State:
    # H100, same-run A/B (experiments: u_order_ab): int8 ul2 kernels 1.01-1.65x, median 1.25x
    # (960^2 16/64/64 308.7 -> 242.3 us), errors bit-equal.
    i = next(i for i, (k, _) in enumerate(state.forward) if orders_u(k))
    ordered, weight = fragment_order_u(state.forward[i], list(state.weight), options.u_rows)
    forward = (*state.forward[:i], ordered, *state.forward[i + 1:])
    return replace(state, forward=forward, weight=tuple(weight))


def _launch_bounds(state: State, options: Options) -> State:
    return state.with_first(replace(state.first, min_blocks=options.min_blocks))


# In order. The persistent-block passes come last: the ones before find ITrans and OTrans by
# their place in the body.
PASSES: tuple[Pass, ...] = (
    Pass("round_input_taps", _fused, _round_taps),
    Pass("warp_barriers", _fused, _warp_barriers),
    Pass("pkf_fusion", lambda o, s: o.fusion in _FUSE, _pkf_fusion),
    Pass("full_fusion", lambda o, s: o.fusion == "full", _full_fusion),
    Pass("separate_otrans", lambda o, s: o.fusion != "full", _separate_otrans),
    Pass("specialise", _pays_to_specialise, _specialise),
    Pass("whole_tiles", _takes_whole_tiles, _whole_tiles),
    Pass("unroll_itrans", _unrolls_itrans, _unroll_itrans),
    Pass("unroll_otrans", lambda o, s: s.full_m2, _unroll_otrans),
    Pass("async_u", _stages_u_async, _async_u),
    Pass("persist", lambda o, s: o.persist, _persist),
    Pass("input_pipeline", lambda o, s: o.persist and s.whole_tiles and o.input_pipeline,
         _input_pipeline),
    Pass("fragment_order", _orders_u, _fragment_order),
    Pass("launch_bounds", lambda o, s: bool(o.min_blocks), _launch_bounds),
)


def run_passes(state: State, options: Options, passes: Sequence[Pass] = PASSES) -> State:
    """Each pass in order, where it applies to the state the ones before left."""
    for step in passes:
        if step.applies(options, state):
            state = step.run(state, options)
    return state


def reconstruct(source: str, launches: Sequence[Mapping], options: Options) -> Reconstructed:
    """Split and identify the prototype's kernels, then run every pass that applies."""
    _check(options)
    cuda = split_kernels(source)
    by_name = {launch.name: launch for launch in map(Launch.from_dict, launches)}
    for kernel in cuda.kernels:
        if kernel.name not in by_name:
            raise ReconstructError(f"reconstruct: no launch given for kernel {kernel.name}")
        check_launch(kernel, by_name[kernel.name])
    state = run_passes(State.start(identify_stages(cuda.kernels), by_name), options)
    kernels = tuple(k for k, _ in (*state.weight, *state.forward))
    return Reconstructed(render_source(CudaSource(cuda.preamble, kernels)),
                         [launch.to_dict() for _, launch in state.weight],
                         [launch.to_dict() for _, launch in state.forward], list(state.removed))
