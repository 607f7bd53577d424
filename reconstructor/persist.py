"""Persistent blocks for the full kernel: U staged once per block, then a loop over tile blocks.

With one channel chunk (TB_K = C) a full-kernel block stages its whole U slice (alpha^2 x TB_N x
C) in shared memory, reads it in its BGEMM and nothing else writes there (the M slice reuses
only the V staging: KernelConfig.can_persist asks for that, and persist_blocks checks that U
lies beyond the M slice). Each tile block TVM launches restages the same slice from L2: at
960^2 with 32 tiles x 64 channels per block, 128 KB of U per 16 KB of output. Here the kernel
stages U once and loops over the tile blocks blockIdx.x, blockIdx.x + gridDim.x, ..., so the
host launches only as many blocks as stay resident (Launch.persistent). blockIdx.y (the
output-channel block, which selects U's slice) stays fixed per block.
"""

from __future__ import annotations

import regex

from .cblocks import enclosing_loops, find_loops, indent_of, reindent
from .cexpr import constant_term
from .errors import ReconstructError
from .launch import Launch
from .passes import (
    _IDENT,
    _SCALAR_BYTES,
    _SHARED_DECL,
    _bytes,
    _copies,
    _declared,
    _named,
    _one,
    u_staging_loop,
)
from .source import Kernel

TILE_BLOCK = "tile_block"
PERSIST_MARK = "Persistent blocks:"
_U = regex.compile(r"\bU_ptr\b")
_BLOCK_X = regex.compile(r"(?<![\w.])blockIdx\.x\b")
_BARRIER_AFTER = regex.compile(r"[ ]*__sync(?:warp|threads)\(\);\n")


def _u_start(staging: str, buffer: str) -> int:
    """Lowest byte of the shared buffer U's staging writes (TVM's indices are sums of
    non-negative terms: the constant one)."""
    copies = [c for c in _copies(staging) if c.src.name == "U_ptr"]
    dst = _one([c.dst for c in copies], "copy of U into shared memory")
    if dst.name != buffer or dst.cast is None:
        raise ReconstructError(f"U is copied to {dst.name}, not the shared buffer {buffer}")
    return constant_term(dst.index) * _bytes(dst.cast, _SCALAR_BYTES)


@_named
def persist_blocks(full: Kernel, launch: Launch, m_bytes: int) -> tuple[Kernel, Launch]:
    """full with its U staging loop hoisted above a loop over the tile blocks (gridDim.x apart);
    the launch marked persistent. ReconstructError where U is not staged once per block or
    where the M slice (its first m_bytes bytes of shared memory) would overwrite it."""
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
    shared_names = (set(_IDENT.findall(hoisted)) - _declared(hoisted)) & _declared(outside)
    if shared_names:
        raise ReconstructError(f"{full.name}: U's staging uses {sorted(shared_names)}, declared "
                               "outside it")
    decl = _one(list(_SHARED_DECL.finditer(outside)), f"shared buffer in {full.name}")
    u_start = _u_start(hoisted, decl["name"])
    if u_start < m_bytes:
        raise ReconstructError(f"{full.name}: U is staged from byte {u_start}, inside the M slice "
                               f"(bytes 0-{m_bytes}); TVM placed it before V")
    indent = indent_of(body, loop.start)
    per_tile = reindent(_BLOCK_X.sub(TILE_BLOCK, outside[decl.end():]), indent, indent + "  ")
    tiles = launch.grid[0]
    body = (
        outside[:decl.end()]
        + hoisted
        + f"{indent}// {PERSIST_MARK} U above is staged once; the block then computes tile\n"
        + f"{indent}// blocks blockIdx.x, blockIdx.x + gridDim.x, ... (the host launches as many\n"
        + f"{indent}// as stay resident). The barrier at the end keeps the next tile block's V\n"
        + f"{indent}// off the M slice until every warp has read it.\n"
        + f"{indent}int {TILE_BLOCK} = (int)blockIdx.x;\n"
        + f"{indent}while ({TILE_BLOCK} < {tiles}) {{\n"
        + per_tile.rstrip(" ")
        + f"{indent}  __syncthreads();\n"
        + f"{indent}  {TILE_BLOCK} += (int)gridDim.x;\n"
        + f"{indent}}}\n"
    )
    kernel = Kernel(full.name, full.launch_bounds, full.params, body)
    return kernel, Launch(launch.name, launch.params, launch.grid, launch.block,
                          launch.shared_bytes, persistent=True)

