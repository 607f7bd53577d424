"""Passes over split kernels: the BGEMM's warp barriers, and the two PKF fusions of ITrans+BGEMM.

The schedules (kernels.pkf.schedule) make fusion a text splice: ITrans and BGEMM have the same
block shape and tile blocks, warp threadIdx.y owns tap column alpha_w in both, and ITrans stages
its V chunk in shared memory with exactly the layout of the BGEMM's V slice. Each pass checks
what it relies on and raises ReconstructError naming itself when TVM's output differs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import regex

from .cblocks import Loop, enclosing_loops, find_loops, indent_of, reindent
from .cexpr import constant_term
from .errors import ReconstructError
from .identify import BALANCED, U, V
from .launch import Launch, buffer_name
from .source import Kernel, Param
from .text import (
    BLOCK_Y,
    IDENT,
    SCALAR_BYTES,
    SHARED_DECL,
    SYNCTHREADS,
    U_FROM_L2,
    VEC_COPY,
    VECTOR_BYTES,
    Block,
    Copy,
    check_warp_private,
    cut_at_barrier,
    declared_names,
    exactly_one,
    find_copies,
    named_pass,
    thread_points,
    type_bytes,
)

SYNCWARP = "__syncwarp();"
SHMEM_KERNEL = "itrans_bgemm_shmem_kernel"
LLC_KERNEL = "itrans_bgemm_llc_kernel"
# The comments opening ITrans's part of the fused kernels (reconstructor.specialise finds it).
SHMEM_MARK = "PKF-Shmem:"
# How PKF-Shmem's comment says why ITrans needs no block barrier (whole_tiles rewrites it).
SYNC_FREE_NOTE = "(each warp fills only its own tap column, so a warp barrier suffices)."
LLC_MARK = "PKF-LLC:"
# ITrans's locals get this prefix in a fused kernel, so they cannot clash with the BGEMM's.
PREFIX = "it_"

@named_pass
def strip_warp_barriers(bgemm: Kernel) -> Kernel:
    """Replace the BGEMM's __syncthreads() by __syncwarp(): each warp stages and reads only
    its own tap column. (Lanes of a warp still read what other lanes wrote, through
    load_matrix_sync, so the memory model needs the warp barrier; it costs ~nothing.)"""
    shared = [m["name"] for m in SHARED_DECL.finditer(bgemm.body)]
    if not shared:
        raise ReconstructError(f"no `extern __shared__` buffer in {bgemm.name}")
    check_warp_private(bgemm.body, shared)
    if SYNCTHREADS not in bgemm.body:
        raise ReconstructError(f"no {SYNCTHREADS} in {bgemm.name}")
    return replace(bgemm, body=bgemm.body.replace(SYNCTHREADS, SYNCWARP))


# ---- the two kernels' anatomy -----------------------------------------------------------------

@dataclass(frozen=True)
class _Bgemm:
    """The BGEMM's dynamic buffer, its reduction loop over channel chunks and its V/U copies."""

    kernel: Kernel
    buffer: str
    decl_end: int
    chunk: str
    chunks: int
    v_copy: Copy
    v_loops: tuple[Loop, ...]
    u_copy: Copy | None  # None when the B fragments load straight from global memory
    region: tuple[int, int]

    def v_copy_points(self, block: Block, bx: int, c: int) -> Iterator[tuple[int, int, int]]:
        """(warp, V index, shared index) of the V copy in tile block bx, chunk c."""
        fixed = {"blockIdx.x": bx} if self.chunk == "0" else {"blockIdx.x": bx, self.chunk: c}
        return thread_points([self.v_copy.src.index, self.v_copy.dst.index], self.v_loops, block,
                             fixed)


@dataclass(frozen=True)
class _Itrans:
    """ITrans cut at its one block barrier: compute into shared memory, then store to V."""

    kernel: Kernel
    ctype: str
    shared: str
    align: int
    arrays: str
    compute: str
    tail: str  # the barrier line and the store part
    store: Copy
    store_loops: tuple[Loop, ...]

    def store_points(self, block: Block, bx: int, c: int) -> Iterator[tuple[int, int, int]]:
        """(warp, V index, shared index) of the store to V in tile block bx, chunk c."""
        return thread_points([self.store.dst.index, self.store.src.index], self.store_loops, block,
                       {"blockIdx.x": bx, "blockIdx.y": c})


def _analyse_bgemm(bgemm: Kernel) -> _Bgemm:
    """Find the BGEMM's buffer, V and U copies and chunk loop (the loop around V copy and mma)."""
    body = bgemm.body
    decl = exactly_one(list(SHARED_DECL.finditer(body)), "`extern __shared__` buffer in the BGEMM")
    copies = [c for c in find_copies(body) if c.dst.name == decl["name"]]
    v_copy = exactly_one([c for c in copies if c.src.name == V], f"copy {V} -> shared memory")
    u_copies = [c for c in copies if c.src.name == U]
    u_copy = exactly_one(u_copies, f"copy {U} -> shared memory") if u_copies else None
    if v_copy.dst.cast is None:
        # A single staged buffer is declared with its element type instead of as bytes.
        if decl["ctype"] in ("uchar", "unsigned char"):
            raise ReconstructError(f"the V copy does not cast {decl['name']} to its type")
        v_copy = replace(v_copy, dst=replace(v_copy.dst, cast=decl["ctype"]))
    mma = body.find("mma_sync(")
    if mma < 0:
        raise ReconstructError("no mma_sync in the BGEMM")
    loops = find_loops(body)
    around_v = enclosing_loops(loops, v_copy.start)
    reduction = [loop for loop in around_v if loop.contains(mma)]
    # TVM drops a loop of extent 1: with one channel chunk the copies sit in the body itself.
    chunk, chunks = (reduction[-1].var, reduction[-1].extent) if reduction else ("0", 1)
    inner = tuple(around_v[len(reduction):])
    region = (inner[0].start, inner[0].end) if inner else (v_copy.start, v_copy.end)
    if u_copy is not None and region[0] <= u_copy.start < region[1]:
        raise ReconstructError("the V and U copies share a loop; cannot replace V's")
    return _Bgemm(bgemm, decl["name"], decl.end(), chunk, chunks, v_copy, inner, u_copy, region)


def _analyse_itrans(itrans: Kernel) -> _Itrans:
    """Cut ITrans into its shared buffer, local arrays, compute part and barrier + store part."""
    staged = cut_at_barrier(itrans, "ITrans", "compute | store")
    decl, compute, tail = staged.decl, staged.before, staged.after
    if regex.search(rf"(?<![\w.]){V}\b", compute) or decl["name"] not in compute:
        raise ReconstructError(f"ITrans's part before its barrier should write only "
                               f"{decl['name']}, not {V}")
    store = exactly_one([c for c in find_copies(tail)
                         if c.dst.name == V and c.src.name == decl["name"]],
                        f"copy {decl['name']} -> {V} after ITrans's barrier")
    return _Itrans(itrans, decl["ctype"], decl["name"], int(decl["align"]),
                   staged.arrays, compute, tail, store,
                   tuple(enclosing_loops(find_loops(tail), store.start)))


# ---- checks that the splice is sound ----------------------------------------------------------

def _check_launches(bg: _Bgemm, it_launch: Launch, bg_launch: Launch) -> None:
    """Same block shape and tile blocks (grid x); ITrans's grid y walks the BGEMM's chunks."""
    if it_launch.block != bg_launch.block:
        raise ReconstructError(f"ITrans block {it_launch.block} != BGEMM block "
                               f"{bg_launch.block}")
    if it_launch.grid != (bg_launch.grid[0], bg.chunks, 1):
        raise ReconstructError(
            f"ITrans grid {it_launch.grid} should be (BGEMM grid x {bg_launch.grid[0]}, "
            f"the BGEMM's {bg.chunks} channel chunks of loop {bg.chunk}, 1)"
        )


def _check_v_layout(it: _Itrans, bg: _Bgemm, block: Block, grid_x: int, offset: int | None) -> None:
    """ITrans's store and the BGEMM's V copy must move the same V elements, per block and chunk;
    with offset (elements, shmem fusion) also between the same shared slots and in the same warp."""
    if it.store.vtype != bg.v_copy.vtype:
        raise ReconstructError(f"ITrans stores V as {it.store.vtype}, the BGEMM copies it"
                               f" as {bg.v_copy.vtype}")
    last = (grid_x - 1, bg.chunks - 1)
    for bx, c in {(0, 0), (min(1, last[0]), min(1, last[1])), last}:
        read, written = set(bg.v_copy_points(block, bx, c)), set(it.store_points(block, bx, c))
        if offset is None:
            ok = {p[1] for p in read} <= {p[1] for p in written}
        else:
            ok = read == {(ty, g, s + offset) for ty, g, s in written}
        if not ok:
            raise ReconstructError(
                f"ITrans's V store and the BGEMM's V copy disagree on the layout "
                f"(block x {bx}, chunk {c}); the schedules no longer match"
            )


def _check_compute_slots(it: _Itrans, bg: _Bgemm, block: Block, offset: int) -> None:
    """Each warp's ITrans compute must fill exactly the shared slots that warp's V copy filled."""
    name = regex.escape(it.shared)
    stores = list(regex.finditer(BALANCED + rf"^[ ]*{name}(?P<index>(?&brk)) = ", it.compute,
                                 flags=regex.M))
    if len(stores) != len(regex.findall(rf"(?<![\w.]){name}\b", it.compute)):
        raise ReconstructError(f"ITrans's compute uses {it.shared} other than by "
                               f"`{it.shared}[i] = v` stores")
    loops, filled = find_loops(it.compute), set()
    for m in stores:
        filled |= set(thread_points([m["index"][1:-1]], enclosing_loops(loops, m.start()), block,
                              {"blockIdx.x": 0, "blockIdx.y": 0}))
    width = 1
    if bg.v_copy.vtype is not None:
        width = (type_bytes(bg.v_copy.vtype, VECTOR_BYTES)
                 // type_bytes(it.ctype, SCALAR_BYTES))
    copied = {(ty, s - offset + k) for ty, _, s in bg.v_copy_points(block, 0, 0)
              for k in range(width)}
    if filled != copied:
        raise ReconstructError("the warps of ITrans's compute fill other shared slots "
                               "than the BGEMM's V copy; a warp barrier would not suffice")


# ---- splicing ---------------------------------------------------------------------------------

def _adapt(it: _Itrans, bg: _Bgemm, text: str, byte_offset: int) -> str:
    """ITrans text made to run inside the BGEMM's chunk loop: locals prefixed, chunk for
    blockIdx.y, its shared buffer rebased into the BGEMM's dynamic buffer at byte_offset."""
    names = declared_names(it.arrays + it.compute + it.tail)
    if not names:
        raise ReconstructError("found no declarations in ITrans to rename")
    clash = {m.group() for m in IDENT.finditer(bg.kernel.body) if m.group().startswith(PREFIX)}
    if clash:
        raise ReconstructError(f"the BGEMM already uses names {sorted(clash)} starting "
                               f"with {PREFIX!r}")
    pattern = regex.compile(r"(?<![\w.])(?:" + "|".join(sorted(names, reverse=True)) + r")\b")
    text = pattern.sub(lambda m: PREFIX + m.group(), text)
    text = BLOCK_Y.sub(bg.chunk, text)
    return regex.sub(rf"(?<![\w.]){it.shared}\b", byte_view(bg.buffer, it.ctype, byte_offset),
                     text)


def reads_u(copy: regex.Match) -> bool:
    """Whether a VEC_COPY match copies from U (U_ptr): U's staging into shared memory."""
    return regex.match(r"\(U_ptr\b", copy["src"]) is not None


def u_copies(body: str) -> list[regex.Match]:
    """The vector copies in body that read U."""
    return [m for m in VEC_COPY.finditer(body) if reads_u(m)]


def u_staging_loop(kernel: Kernel) -> Loop:
    """The loop that copies U into shared memory: the outermost one around U's vector copies
    that holds no MMA (inside the channel loop where there is one). ReconstructError where the
    B fragments come from L2, nothing copies U, or several loops do."""
    body = kernel.body
    if U_FROM_L2.search(body):
        raise ReconstructError(f"{kernel.name} loads its B fragments from L2 (ul2): no U staging")
    copies = u_copies(body)
    if not copies:
        raise ReconstructError(f"{kernel.name} has no vector copy of U into shared memory")
    loops = find_loops(body)
    staging = {next((lp for lp in enclosing_loops(loops, m.start())
                     if "mma_sync" not in body[lp.start:lp.end]), None) for m in copies}
    if None in staging or len(staging) != 1:
        raise ReconstructError(f"{kernel.name}: U is copied by {len(staging)} loops, expected one")
    return staging.pop()


def byte_view(buffer: str, ctype: str, byte_offset: int | None = None) -> str:
    """The fused kernel's byte buffer (at byte_offset) seen as an array of ctype."""
    raw = f"((unsigned char*){buffer})"
    if byte_offset is not None:
        raw = f"({raw} + {byte_offset})"
    return f"(({ctype}*){raw})"


def _splice(it: _Itrans, bg: _Bgemm, part: str, keep_v_copy: bool, byte_offset: int,
            comment: str) -> str:
    """The BGEMM body with part before (llc) or instead of (shmem) its V copy, ITrans's local
    arrays hoisted under the BGEMM's shared buffer declaration."""
    body = bg.kernel.body
    it_indent = indent_of(it.kernel.body, 0)
    indent = indent_of(body, bg.region[0])
    part = reindent(_adapt(it, bg, part, byte_offset), it_indent, indent)
    lines = [f"{indent}// {line}\n" for line in comment.splitlines()]
    start, end = bg.region
    body = body[:start] + "".join(lines) + part + body[start if keep_v_copy else end:]
    arrays = reindent(_adapt(it, bg, it.arrays, byte_offset), it_indent,
                      indent_of(body, bg.decl_end - 1))
    return body[:bg.decl_end] + arrays + body[bg.decl_end:]


def _fused_params(itrans: Kernel, bgemm: Kernel, drop: set[str]) -> tuple[Param, ...]:
    """ITrans's parameters then the BGEMM's, each once, without those in drop."""
    params: dict[str, Param] = {}
    for p in (*itrans.params, *bgemm.params):
        if p.name not in drop:
            params.setdefault(p.name, p)
    return tuple(params.values())


def _launch_of(kernel: Kernel, bg_launch: Launch, shared_bytes: int) -> Launch:
    return Launch(kernel.name, tuple(buffer_name(p.name) for p in kernel.params), bg_launch.grid,
                  bg_launch.block, shared_bytes)


@named_pass
def fuse_shmem(itrans: Kernel, bgemm: Kernel, itrans_launch: Launch,
               bgemm_launch: Launch) -> tuple[Kernel, Launch]:
    """PKF-Shmem: in each chunk step ITrans's compute writes the block's V slice straight into
    the BGEMM's shared memory, replacing the V copy; V never goes through global memory."""
    it, bg = _analyse_itrans(itrans), _analyse_bgemm(bgemm)
    _check_launches(bg, itrans_launch, bgemm_launch)
    if bg.v_copy.dst.cast != it.ctype:
        raise ReconstructError(f"BGEMM stages V as {bg.v_copy.dst.cast}, ITrans as "
                               f"{it.ctype}")
    size = type_bytes(it.ctype, SCALAR_BYTES)
    v_off = constant_term(bg.v_copy.dst.index)
    u_off = constant_term(bg.u_copy.dst.index) if bg.u_copy is not None else v_off
    # The V slice runs to the U slice when U follows it, else to the end of the buffer.
    v_end = u_off if u_off > v_off else bgemm_launch.shared_bytes // size
    v_bytes = (v_end - v_off) * size
    if v_bytes != itrans_launch.shared_bytes:
        raise ReconstructError(
            f"the BGEMM's V slice (elements {v_off}.. of {bg.buffer}) holds {v_bytes} "
            f"bytes but ITrans stages {itrans_launch.shared_bytes}"
        )
    check_warp_private(it.compute, [it.shared])
    _check_v_layout(it, bg, bgemm_launch.block, bgemm_launch.grid[0], v_off)
    _check_compute_slots(it, bg, bgemm_launch.block, v_off)
    comment = (f"{SHMEM_MARK} {itrans.name} for channel chunk {bg.chunk}, written straight into "
               f"the V slice\n{SYNC_FREE_NOTE}")
    part = it.compute + indent_of(it.kernel.body, 0) + SYNCWARP + "\n"
    body = _splice(it, bg, part, False, v_off * size, comment)
    kernel = Kernel(SHMEM_KERNEL, bgemm.launch_bounds, _fused_params(itrans, bgemm, {V}), body)
    return kernel, _launch_of(kernel, bgemm_launch, bgemm_launch.shared_bytes)


@named_pass
def fuse_llc(itrans: Kernel, bgemm: Kernel, itrans_launch: Launch,
             bgemm_launch: Launch) -> tuple[Kernel, Launch]:
    """PKF-LLC: in each chunk step the whole ITrans writes the chunk of V to global memory, a
    block barrier follows, and the BGEMM's V copy reads it back while it is still in L2."""
    it, bg = _analyse_itrans(itrans), _analyse_bgemm(bgemm)
    _check_launches(bg, itrans_launch, bgemm_launch)
    _check_v_layout(it, bg, bgemm_launch.block, bgemm_launch.grid[0], None)
    # ITrans keeps its own staging buffer, placed after the BGEMM's at ITrans's alignment.
    offset = -(-bgemm_launch.shared_bytes // it.align) * it.align
    # Blocks with different blockIdx.y (output-channel blocks) recompute and rewrite the same V
    # chunk with identical values: redundant work, but benign.
    comment = (f"{LLC_MARK} {itrans.name} for channel chunk {bg.chunk} writes V to global memory;"
               "\nblocks of other blockIdx.y rewrite the same values (benign). The barrier makes"
               "\nthe writes visible to the block; the V copy below reads them back from L2.")
    part = it.compute + it.tail + indent_of(it.kernel.body, 0) + SYNCTHREADS + "\n"
    body = _splice(it, bg, part, True, offset, comment)
    kernel = Kernel(LLC_KERNEL, bgemm.launch_bounds, _fused_params(itrans, bgemm, set()), body)
    return kernel, _launch_of(kernel, bgemm_launch, offset + itrans_launch.shared_bytes)
