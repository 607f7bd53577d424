"""Persistent blocks for the full kernel: U staged once per block, then a loop over tile blocks.

With one channel chunk (TB_K = C) a full-kernel block stages its whole U slice (alpha^2 x TB_N x
C) in shared memory, reads it in its BGEMM and nothing else writes there (the M slice reuses
only the V staging; KernelConfig.persists checks that). Each tile block TVM launches restages
the same slice from L2: at 960^2 with 32 tiles x 64 channels per block, 128 KB of U per 16 KB of
output. Here the kernel stages U once and loops over the tile blocks blockIdx.x, blockIdx.x +
gridDim.x, ..., so the host launches only as many blocks as stay resident (Launch.persistent).
blockIdx.y (the output-channel block, which selects U's slice) stays fixed per block.
"""

from __future__ import annotations

import regex

from .cblocks import enclosing_loops, find_loops, indent_of, reindent
from .errors import ReconstructError
from .launch import Launch
from .passes import _IDENT, _SHARED_DECL, _declared, _named, _one
from .source import Kernel

TILE_BLOCK = "tile_block"
PERSIST_MARK = "Persistent blocks:"
_U = regex.compile(r"\bU_ptr\b")
_BLOCK_X = regex.compile(r"(?<![\w.])blockIdx\.x\b")
_BARRIER_AFTER = regex.compile(r"[ ]*__sync(?:warp|threads)\(\);\n")


@_named
def persist_blocks(full: Kernel, launch: Launch) -> tuple[Kernel, Launch]:
    """full with its U staging loop hoisted above a loop over the tile blocks (gridDim.x apart);
    the launch marked persistent. ReconstructError where U is not staged once per block."""
    body = full.body
    if regex.search(r"\breturn\b", body):
        raise ReconstructError(f"{full.name} returns early; a persistent loop cannot wrap it")
    uses = [m.start() for m in _U.finditer(body)]
    if not uses:
        raise ReconstructError(f"{full.name} does not read U")
    loops = find_loops(body)
    staging = {tuple(enclosing_loops(loops, pos))[:1] for pos in uses}
    if len(staging) != 1 or not next(iter(staging)):
        raise ReconstructError(f"{full.name}: U is not read by one top-level staging loop (a "
                               "channel loop, or B fragments loaded from L2)")
    (loop,) = next(iter(staging))
    barrier = _BARRIER_AFTER.match(body, loop.end)
    if barrier is None:
        raise ReconstructError(f"{full.name}: no barrier follows U's staging loop")
    hoisted = body[loop.start:barrier.end()]
    if _BLOCK_X.search(hoisted):
        raise ReconstructError(f"{full.name}: U's staging depends on blockIdx.x")
    outside = body[:loop.start] + body[barrier.end():]
    shared_names = set(_IDENT.findall(hoisted)) & _declared(outside)
    if shared_names:
        raise ReconstructError(f"{full.name}: U's staging uses {sorted(shared_names)}, declared "
                               "outside it")
    decl = _one(list(_SHARED_DECL.finditer(outside)), f"shared buffer in {full.name}")
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

