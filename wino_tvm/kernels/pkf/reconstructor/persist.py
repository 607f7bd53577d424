"""Persistent blocks for the full kernel: U staged once per block, then a loop over tile blocks.

With one channel chunk (TB_K = C) a full-kernel block stages its whole U slice (alpha^2 x TB_N x
C) in shared memory, reads it in its BGEMM and nothing else writes there (the M slice reuses
only the V staging: KernelConfig.can_persist asks for that, and persist_blocks checks that U
lies beyond the M slice). Each tile block TVM launches restages the same slice from L2: at
960^2 with 32 tiles x 64 channels per block, 128 KB of U per 16 KB of output. Here the kernel
stages U once and loops over the tile blocks blockIdx.x, blockIdx.x + gridDim.x, ..., so the
host launches only as many blocks as stay resident (Launch.persistent). blockIdx.y (the
output-channel block, which selects U's slice) stays fixed per block.

With groups G > 1 a block holds G groups of alpha warps (threadIdx.z) that share its U and each
loop over their own tile blocks with their own V/M staging and a named barrier: U (alpha^2 x
TB_N x C) is the bulk of the shared memory, so G groups fit where G blocks would not, and the SM
gets G times the warps to hide latency with.

With a channel split N > 1 the block's N groups instead share each tile block: ITrans (its trips
dealt to all N alpha warps by whole_tile_itrans) writes one V, and group z computes channel
block blockIdx.y N + z of it from its own U slice into its own M slice: N times the warps where
one V slice and the N U slices fill the shared memory.
"""

from __future__ import annotations

import regex

from wino_tvm.device import SHMEM_ALIGN, shmem_aligned

from .cblocks import Loop, enclosing_loops, find_loops, indent_of, reindent
from .cexpr import constant_term
from .errors import ReconstructError
from .full import FULL_MARK
from .launch import Launch
from .passes import u_staging_loop
from .source import Kernel
from .text import (
    IDENT,
    SCALAR_BYTES,
    SHARED_DECL,
    declared_names,
    exactly_one,
    find_copies,
    named_pass,
    type_bytes,
)
from .whole_tiles import WHOLE_TILES_MARK

TILE_BLOCK = "tile_block"
PERSIST_MARK = "Persistent blocks:"
_U = regex.compile(r"\bU_ptr\b")
_BLOCK_X = regex.compile(r"(?<![\w.])blockIdx\.x\b")
_BARRIER_AFTER = regex.compile(r"[ ]*__sync(?:warp|threads)\(\);\n")
GROUP_SHMEM = "group_shmem"
GROUP_U, GROUP_M = "group_u", "group_m"
BLOCK_Y = regex.compile(r"(?<![\w.])blockIdx\.y\b")
# whole_tile_itrans's note when it deals ITrans's trips to the warps of every group.
_SPLIT_ITRANS = regex.compile(rf"// {regex.escape(WHOLE_TILES_MARK)} warp threadIdx\.z \* ")
# U's reads in the MMA: the only shared accesses of the per-tile code that stay on the base.
_U_READ = regex.compile(r"^.*\bload_matrix_sync\(U_shared\w*\[.*$", regex.M)
_U_INDEX = regex.compile(r"\(\((?P<cast>[\w ]+)\*\)(?P<name>\w+)\)\[(?P<index>.+)\]\)\), \d+\);$")
_SYNCTHREADS = regex.compile(r"\b__syncthreads\(\);")


def _u_start(staging: str, buffer: str) -> int:
    """Lowest byte of the shared buffer U's staging writes (TVM's indices are sums of
    non-negative terms: the constant one)."""
    copies = [c for c in find_copies(staging) if c.src.name == "U_ptr"]
    dst = exactly_one([c.dst for c in copies], "copy of U into shared memory")
    if dst.name != buffer or dst.cast is None:
        raise ReconstructError(f"U is copied to {dst.name}, not the shared buffer {buffer}")
    return constant_term(dst.index) * type_bytes(dst.cast, SCALAR_BYTES)


@named_pass
def persist_blocks(full: Kernel, launch: Launch, m_bytes: int, groups: int = 1,
                   k_split: int = 1) -> tuple[Kernel, Launch]:
    """full with its U staging loop hoisted above a loop over the tile blocks (gridDim.x apart),
    run by groups warp groups sharing U, or by k_split warp groups sharing each tile block (and
    its V) with an output-channel block each; the launch marked persistent. ReconstructError
    where U is not staged once per block or where the M slice (its first m_bytes bytes of
    shared memory) would overwrite it."""
    body = full.body
    if regex.search(r"\breturn\b", body):
        raise ReconstructError(f"{full.name} returns early; a persistent loop cannot wrap it")
    loop = u_staging_loop(full)
    if any(not loop.contains(m.start()) for m in _U.finditer(body)):
        raise ReconstructError(f"{full.name}: U is not read by one staging loop")
    if enclosing_loops(find_loops(body), loop.start):
        raise ReconstructError(f"{full.name}: U is staged per channel chunk (tb_k < C), not once")
    barrier = _BARRIER_AFTER.match(body, loop.end)
    if barrier is None:
        raise ReconstructError(f"{full.name}: no barrier follows U's staging loop")
    hoisted = body[loop.start:barrier.end()]
    if _BLOCK_X.search(hoisted):
        raise ReconstructError(f"{full.name}: U's staging depends on blockIdx.x")
    outside = body[:loop.start] + body[barrier.end():]
    shared_names = (set(IDENT.findall(hoisted)) - declared_names(hoisted)) & declared_names(outside)
    if shared_names:
        raise ReconstructError(f"{full.name}: U's staging uses {sorted(shared_names)}, declared "
                               "outside it")
    decl = exactly_one(list(SHARED_DECL.finditer(outside)), f"shared buffer in {full.name}")
    u_start = _u_start(hoisted, decl["name"])
    if u_start < m_bytes:
        raise ReconstructError(f"{full.name}: U is staged from byte {u_start}, inside the M slice "
                               f"(bytes 0-{m_bytes}); TVM placed it before V")
    indent = indent_of(body, loop.start)
    per_tile = reindent(_BLOCK_X.sub(TILE_BLOCK, outside[decl.end():]), indent, indent + "  ")
    tiles = launch.grid[0]
    first, step, barrier_text = "(int)blockIdx.x", "(int)gridDim.x", "__syncthreads();"
    shared_bytes, launch_bounds, block = launch.shared_bytes, full.launch_bounds, launch.block
    if groups > 1 and k_split > 1:
        raise ReconstructError(f"{full.name}: warp groups and a channel split do not combine")
    if (groups > 1 or k_split > 1) and (u_start % SHMEM_ALIGN or launch.shared_bytes % SHMEM_ALIGN):
        raise ReconstructError(f"{full.name}: U's slice ({u_start}-{launch.shared_bytes}) is not "
                               f"{SHMEM_ALIGN}-byte aligned; warp groups would misalign theirs")
    if k_split > 1:
        split = _ChannelSplit(full, launch, k_split, decl["name"], u_start, m_bytes)
        hoisted = split.declarations(indent) + split.staging(hoisted)
        per_tile = split.per_tile(per_tile)
        shared_bytes, launch_bounds = split.shared_bytes, split.threads * k_split
        block = (*launch.block[:2], k_split)
        launch = Launch(launch.name, launch.params,
                        (launch.grid[0], launch.grid[1] // k_split, launch.grid[2]),
                        launch.block, launch.shared_bytes)
    if groups > 1:
        group = _Grouping(full, launch, groups, decl["name"], u_start)
        hoisted = (group.staging(body[loop.start:loop.end], loop)
                   + f"{indent}// Each group reads what all of them staged.\n"
                   + f"{indent}__syncthreads();\n"
                   + f"{indent}{group.declaration}\n")
        per_tile = group.per_tile(per_tile)
        first, step = f"(int)blockIdx.x * {groups} + (int)threadIdx.z", f"(int)gridDim.x * {groups}"
        barrier_text = group.barrier
        shared_bytes, block = group.shared_bytes, (*launch.block[:2], groups)
        launch_bounds = group.threads * groups
    body = (
        outside[:decl.end()]
        + hoisted
        + f"{indent}// {PERSIST_MARK} U above is staged once; the block then computes tile\n"
        + f"{indent}// blocks blockIdx.x, blockIdx.x + gridDim.x, ... (the host launches as many\n"
        + f"{indent}// as stay resident). The barrier at the end keeps the next tile block's V\n"
        + f"{indent}// off the M slice until every warp has read it.\n"
        + f"{indent}int {TILE_BLOCK} = {first};\n"
        + f"{indent}while ({TILE_BLOCK} < {tiles}) {{\n"
        + per_tile.rstrip(" ")
        + f"{indent}  {barrier_text}\n"
        + f"{indent}  {TILE_BLOCK} += {step};\n"
        + f"{indent}}}\n"
    )
    kernel = Kernel(full.name, launch_bounds, full.params, body)
    return kernel, Launch(launch.name, launch.params, launch.grid, block, shared_bytes,
                          persistent=True)


class _Grouping:
    """How groups warp groups share one block: group z > 0 stages V and M in its own copy of
    the bytes below U, placed after U; U is staged by all groups together; the per-tile code's
    block barriers become named barriers of the group (barrier 0 stays the block's)."""

    def __init__(self, full: Kernel, launch: Launch, groups: int, buffer: str, u_start: int):
        threads = launch.block[0] * launch.block[1]
        if launch.block[2] != 1 or regex.search(r"\bthreadIdx\.z\b", full.body):
            raise ReconstructError(f"{full.name} already uses threadIdx.z; it cannot be grouped")
        if threads * groups > 1024 or groups > 15:  # 16 named barriers, 1024 threads per block
            raise ReconstructError(f"{full.name}: {groups} groups of {threads} threads do not fit "
                                   "in one block (1024 threads, 15 named barriers)")
        self.name, self.groups, self.threads, self.buffer = full.name, groups, threads, buffer
        self.shared_bytes = launch.shared_bytes + (groups - 1) * u_start
        self.declaration = (
            f"uchar* {GROUP_SHMEM} = {buffer} + ((int)threadIdx.z == 0 ? 0 : "
            f"{launch.shared_bytes - u_start} + (int)threadIdx.z * {u_start});"
            f"  // group z's V/M slice: bytes 0-{u_start} for z = 0, after U for the others")
        self.barrier = (f'asm volatile("bar.sync %0, {threads};" :: "r"((int)threadIdx.z + 1) '
                        ': "memory");')
        self.u_start = u_start

    def staging(self, loop_text: str, loop: Loop) -> str:
        """U's staging loop with its trips dealt round-robin to the groups (the header stays in
        TVM's form, which reconstructor.cblocks parses)."""
        head, rest = loop_text.split("\n", 1)
        inner = indent_of(rest, 0)
        return (f"{head}\n{inner}if ({loop.var} % {self.groups} != (int)threadIdx.z) {{\n"
                f"{inner}  continue;\n{inner}}}\n{rest}")

    def per_tile(self, text: str) -> str:
        """The per-tile code on the group's slice, with the group's barrier."""
        u_reads = _U_READ.findall(text)
        if not u_reads:
            raise ReconstructError(f"{self.name}: no MMA reads U from shared memory")
        for line in u_reads:
            index = _U_INDEX.search(line)
            if (index is None or index["name"] != self.buffer or constant_term(index["index"])
                    * type_bytes(index["cast"], SCALAR_BYTES) < self.u_start):
                raise ReconstructError(f"{self.name}: U read below U's slice: {line.strip()}")
        lines = [line if _U_READ.fullmatch(line.rstrip("\n")) else
                 regex.sub(rf"\b{self.buffer}\b", GROUP_SHMEM, line)
                 for line in text.splitlines(keepends=True)]
        return _SYNCTHREADS.sub(lambda _: self.barrier, "".join(lines))


class _ChannelSplit:
    """How k_split groups of alpha warps (threadIdx.z) share each tile block of one block:
    group z computes output-channel block blockIdx.y * k_split + z from its own U (staged by its
    own warps) into its own M slice, while V is the block's (whole_tile_itrans deals ITrans's
    trips to every warp). The groups work on a tile block in step, so the block barriers stay.
    Shared memory: V or the k_split M slices, whichever is larger, then the k_split U slices."""

    def __init__(self, full: Kernel, launch: Launch, k_split: int, buffer: str, u_start: int,
                 m_bytes: int):
        threads = launch.block[0] * launch.block[1]
        if launch.block[2] != 1:  # whole_tile_itrans has put threadIdx.z in ITrans alone
            raise ReconstructError(f"{full.name} already launches threadIdx.z; its channels "
                                   "cannot be split over warp groups")
        if threads * k_split > 1024 or launch.grid[1] % k_split:
            raise ReconstructError(f"{full.name}: {k_split} groups of {threads} threads need at "
                                   f"most 1024 threads and a multiple of {k_split} channel "
                                   f"blocks (the grid has {launch.grid[1]})")
        self.name, self.buffer, self.threads = full.name, buffer, threads
        u_bytes, m_slice = launch.shared_bytes - u_start, shmem_aligned(m_bytes)
        u_base = shmem_aligned(max(u_start, k_split * m_slice))
        self.shared_bytes = u_base + k_split * u_bytes
        self.k_split, self.u_shift, self.u_bytes, self.m_slice = (
            k_split, u_base - u_start, u_bytes, m_slice)

    def declarations(self, indent: str) -> str:
        return (f"{indent}// Channel split: group threadIdx.z computes channel block blockIdx.y * "
                f"{self.k_split} + threadIdx.z\n"
                f"{indent}// of each tile block from its own U slice (after every group's M "
                "slice) into its own M slice.\n"
                f"{indent}uchar* {GROUP_U} = {self.buffer} + ({self.u_shift} + (int)threadIdx.z"
                f" * {self.u_bytes});\n"
                f"{indent}uchar* {GROUP_M} = {self.buffer} + (int)threadIdx.z * {self.m_slice};\n")

    def _channel_block(self, text: str) -> str:
        return BLOCK_Y.sub(f"(blockIdx.y * {self.k_split} + threadIdx.z)", text)

    def staging(self, text: str) -> str:
        """U's hoisted staging, into the group's U slice for the group's channel block."""
        return self._channel_block(regex.sub(rf"\b{self.buffer}\b", GROUP_U, text))

    def per_tile(self, text: str) -> str:
        """The per-tile code with the group's channel block, U reads and M slice (everything
        after the full kernel's M staging mark is M)."""
        if not _SPLIT_ITRANS.search(text):
            raise ReconstructError(f"{self.name}: ITrans's trips are not dealt to every warp "
                                   f"group (whole_tile_itrans with k_split={self.k_split})")
        marks = list(regex.finditer(rf"// {regex.escape(FULL_MARK)}", text))
        if len(marks) != 1:
            raise ReconstructError(f"{self.name}: expected one `// {FULL_MARK}` comment")
        head, tail = text[:marks[0].start()], text[marks[0].start():]
        if not _U_READ.search(head) or _U_READ.search(tail):
            raise ReconstructError(f"{self.name}: U is not read by the MMA alone")
        head = _U_READ.sub(lambda m: regex.sub(rf"\b{self.buffer}\b", GROUP_U, m.group()), head)
        tail = regex.sub(rf"\b{self.buffer}\b", GROUP_M, tail)
        return self._channel_block(head + tail)

