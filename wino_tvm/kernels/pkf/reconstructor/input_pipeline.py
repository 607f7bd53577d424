"""Persistent whole-tile kernels: the next tile block's input loads issued before this one's MMA.

In a persistent full kernel (reconstructor.persist) with whole input tiles
(reconstructor.whole_tiles) every warp loads its trips' input tiles, waits for them, transforms
them into V and only then reaches the MMA and OTrans, where no input load is in flight. On the
H100 the 960^2 fp16 kernels spend 27-28% of their stall samples waiting on those loads, and a
channel split's 8 warps wait on them in step (experiments: k_split). Here the tile
arrays live across the tile-block loop: a prologue loads the first tile block, and right after
ITrans's barrier each warp issues the loads of its next tile block, which then travel during
the MMA, the M staging and OTrans. The transforms stay where they were, so the code grows by
one copy of the loads only (an earlier hand-made pipeline duplicated ITrans whole and lost to
its code size, experiments: pipeline_ab).
"""

from __future__ import annotations

import regex

from .cblocks import line_span, matching_brace, reindent
from .errors import ReconstructError
from .persist import TILE_BLOCK
from .source import Kernel
from .text import IDENT, declared_names, exactly_one, named_pass
from .whole_tiles import WHOLE_TILES_MARK

PIPELINE_MARK = "Input pipeline:"
NEXT_TILE_BLOCK = "next_tile_block"
_LOOP_HEAD = regex.compile(rf"^(?P<i>[ ]*)while \({TILE_BLOCK} < (?P<tiles>\d+)\) \{{\n", regex.M)
_STEP = regex.compile(rf"^[ ]*{TILE_BLOCK} \+= (?P<step>.+);\n", regex.M)
_MARK = regex.compile(rf"^(?P<i>[ ]*)// {regex.escape(WHOLE_TILES_MARK)}.*\n(?:(?P=i)// .*\n)*"
                      r"(?P=i)\{\n", regex.M)
_ARRAY = regex.compile(r"[ ]*alignas\(\d+\) [\w ]+ \w+\[\d+\];\n")


def _blocks(text: str, start: int, indent: str) -> list[tuple[int, int]]:
    """(start, end) of each statement at indent from start to the `}` closing that level: a
    line, or a `{`-ended line through its closing brace."""
    out, pos = [], start
    while not text.startswith(f"{indent[:-2]}}}\n", pos):
        if not text.startswith(indent, pos) or text.startswith(" ", pos + len(indent)):
            raise ReconstructError(f"unexpected line in the whole-tiles block: "
                                   f"{text[pos:text.find(chr(10), pos)].strip()}")
        end = line_span(text, pos)[1]
        if text[end - 2] == "{":
            end = line_span(text, matching_brace(text, end - 2))[1]
        out.append((pos, end))
        pos = end
    return out


@named_pass
def pipeline_input_loads(persistent: Kernel) -> Kernel:
    """persistent (a reconstructor.persist kernel with whole input tiles) with its input-tile
    arrays declared above the tile-block loop, loaded there for the first tile block and, after
    ITrans's barrier, for the next."""
    body = persistent.body
    loop = exactly_one(list(_LOOP_HEAD.finditer(body)), f"`while ({TILE_BLOCK} < ...)` loop")
    loop_close = matching_brace(body, loop.end() - 2)
    in_loop = body[loop.end():loop_close]
    step = exactly_one(list(_STEP.finditer(in_loop)), f"`{TILE_BLOCK} += ...;`")["step"]
    mark = exactly_one(list(_MARK.finditer(in_loop)), f"`// {WHOLE_TILES_MARK}` block")
    block_open = loop.end() + mark.end()
    inner = mark["i"] + "  "
    statements = _blocks(body, block_open, inner)
    block_close = statements[-1][1]  # the line of the `}` closing the block
    block_end = line_span(body, block_close)[1]
    # whole_tile_itrans writes each round's tile array, then that round's loads, then the
    # transforms of every round.
    texts = [body[start:end] for start, end in statements]
    arrays, loads, pos = [], [], 0
    while pos + 1 < len(texts) and _ARRAY.fullmatch(texts[pos]):
        arrays.append(texts[pos])
        loads.append(texts[pos + 1])
        pos += 2
    rest = texts[pos:]
    if not loads or not rest or any(_ARRAY.fullmatch(t) for t in rest):
        raise ReconstructError("the whole-tiles block is not the tile arrays' loads, then the "
                               "transforms")
    load_text = "".join(loads)
    if "x_ptr" not in load_text:
        raise ReconstructError("the input-tile loads do not read the input x")
    outside = body[:block_open] + "".join(rest) + body[block_end:]
    reads = set(IDENT.findall(load_text)) - declared_names(load_text)
    shared = sorted((reads & declared_names(outside)) - {TILE_BLOCK})
    if shared:
        raise ReconstructError(f"the input-tile loads read {shared}, declared in the loop")
    barrier_end = line_span(body, block_end)[1]
    barrier = body[block_end:barrier_end].strip()
    if not (barrier == "__syncthreads();" or barrier.startswith('asm volatile("bar.sync')):
        raise ReconstructError(f"no barrier follows the whole-tiles block: {barrier}")
    indent, deeper = loop["i"], loop["i"] + "  "
    prologue = (
        f"{indent}// {PIPELINE_MARK} the input-tile arrays outlive the tile-block loop; each\n"
        f"{indent}// tile block's loads are issued during the previous one's MMA and OTrans.\n"
        + "".join(reindent(a, inner, indent) for a in arrays)
        + f"{indent}if ({TILE_BLOCK} < {loop['tiles']}) {{\n"
        + reindent(load_text, inner, deeper)
        + f"{indent}}}\n")
    # The next tile block's loads, under its own name for TILE_BLOCK (C++ would read the inner
    # declaration in its own initialiser, hence next_tile_block first).
    ahead = (
        f"{deeper}{{\n"
        f"{deeper}  int {NEXT_TILE_BLOCK} = {TILE_BLOCK} + {step};\n"
        f"{deeper}  if ({NEXT_TILE_BLOCK} < {loop['tiles']}) {{\n"
        f"{deeper}    int {TILE_BLOCK} = {NEXT_TILE_BLOCK};\n"
        + reindent(load_text, inner, deeper + "    ")
        + f"{deeper}  }}\n{deeper}}}\n")
    return Kernel(persistent.name, persistent.launch_bounds, persistent.params,
                  body[:loop.start()] + prologue + body[loop.start():block_open] + "".join(rest)
                  + body[block_close:barrier_end] + ahead + body[barrier_end:])
