"""Whole input tiles per thread in the full kernel's ITrans (after warp specialisation).

In the sync-free mapping warp w computes tap column w of V for every (tile, channel group) of
its block, so each warp loads the input vectors its column needs: at m=2 32 16-byte loads per
(tile, 8 fp16 channels) over the 4 warps, where the tile has 16 (48 with the bounds of a chunked
kernel's loop; int8: 64 4-byte loads per tile and 4 channels), and every warp walks all trips
of the tile loop. The warps can share the tiles
instead: warp w takes trips w, w + alpha, ... and computes every tap column for them (each warp
case's body after one copy of the loads). V's columns then come from every warp, so the warp
barrier before the MMA becomes a block barrier; with several channel chunks (TB_K < C) a second
block barrier, between a chunk's loads and its transforms, keeps the warps from overwriting the
V slice another warp's MMA still reads. All trips' loads come first, each trip into its own copy
of the tile array, then the transforms: nvcc then keeps them in flight together (it did not
when each trip loaded and transformed in turn), and in flight across the second barrier.
"""

from __future__ import annotations

from typing import NamedTuple

import regex

from .cblocks import enclosing_loops, find_loops, indent_of, line_span, reindent
from .errors import ReconstructError
from .passes import SYNC_FREE_NOTE
from .source import Kernel
from .specialise import SPECIALISE_MARK, SWITCH_HEAD
from .text import INT_DECL, SCALAR_BYTES, SYNCTHREADS, declared_names, named_pass, type_bytes

SWITCH = regex.compile(rf"^(?P<i>[ ]*){regex.escape(SWITCH_HEAD)}\n", regex.M)
WHOLE_TILES_MARK = "Whole tiles:"
_SPECIALISED = regex.compile(rf"^[ ]*// {regex.escape(SPECIALISE_MARK)} .*\n(?:[ ]*// .*\n)?",
                             regex.M)
_IDENTIFIER = regex.compile(r"(?<![\w.])[A-Za-z_]\w*")
# `*(uint4*)(it_d_local_ptr + 8) = ...;`: the loads fill the input-tile array by vectors.
_TILE_STORE = regex.compile(r"^[ ]*\*\([\w ]+\*\)\((?P<name>\w+) \+ \d+\) = ", regex.M)
_INPUT = regex.compile(r"\bx_ptr\b")
_DECL = regex.compile(r"alignas\(\d+\) (?P<type>[\w ]+) \w+\[(?P<count>\d+)\];")
# A chunked kernel's warp may keep this many bytes of input tiles in flight: one round of fp16
# tiles (16 pixels x 8 channels x 2 bytes); two spilled (see _itrans_switch).
CHUNKED_TILE_BYTES = 256


class _Switch(NamedTuple):
    """specialise's per-warp switch of the ITrans part: its match, its cases in warp order
    (split by _split_case), the offset just past it, and whether it lies in the channel chunk
    loop."""

    match: regex.Match
    parts: list[tuple[str, str, str, int, str]]
    end: int
    chunked: bool


def _itrans_switch(body: str) -> _Switch | None:
    """The ITrans part's per-warp switch, in the channel chunk loop (TB_K < C) or outside every
    loop (one chunk); None for any other kernel, where the tile loop has one trip (whole tiles
    would leave all but one warp idle) and where a chunked kernel's warps would hold more than
    CHUNKED_TILE_BYTES of tiles per thread."""
    found = list(SWITCH.finditer(body))
    if len(found) != 1:
        return None
    cases, end = _cases(body, found[0])
    if not all(find_loops(case) for case in cases):  # one trip per warp: TVM drops the loop
        return None
    loops = enclosing_loops(find_loops(body), found[0].start())
    if not loops:
        return _Switch(found[0], [_split_case(case) for case in cases], end, chunked=False)
    # The chunk loop is the one loop around ITrans, and the MMA runs in it too.
    if len(loops) != 1 or "wmma::mma_sync" not in body[loops[0].open:loops[0].close]:
        return None
    # There the accumulators are live during ITrans: a second round of fp16 tiles per warp (64
    # more registers of loads) spilled the 32/64/64 fp16-accumulator kernel (128 bytes) and
    # cost it 0.91-0.94x on the H100 (experiments: whole_tiles_chunked), so a warp's
    # rounds of tiles in flight may hold at most one fp16 round's bytes (int8 tiles: 4 rounds).
    parts = [_split_case(case) for case in cases]
    rounds = -(-parts[0][3] // len(parts))
    if rounds * _tile_bytes(parts[0][2], body) > CHUNKED_TILE_BYTES:
        return None
    return _Switch(found[0], parts, end, chunked=True)


def takes_whole_tiles(fused: Kernel) -> bool:
    """Whether fused's ITrans is specialised per warp and runs once per tile block or once per
    channel chunk within CHUNKED_TILE_BYTES per thread, the cases the pass rewrites."""
    return _itrans_switch(fused.body) is not None


def _cases(body: str, switch: regex.Match) -> tuple[list[str], int]:
    """The switch's case bodies in warp order, and the offset just past the switch."""
    indent, cases, pos = switch["i"], [], switch.end()
    case = regex.compile(rf"{indent}case (?P<w>\d+): \{{\n(?P<body>.*?)^{indent}\}} break;\n",
                         regex.M | regex.S)
    while (m := case.match(body, pos)) is not None:
        if int(m["w"]) != len(cases):
            raise ReconstructError(f"warp case {m['w']} out of order")
        cases.append(m["body"])
        pos = m.end()
    tail = regex.compile(rf"{indent}default:\n{indent}  __builtin_unreachable\(\);\n{indent}\}}\n")
    end = tail.match(body, pos)
    if not cases or end is None:
        raise ReconstructError("the per-warp switch is not specialise's (cases, then default)")
    return cases, end.end()


def _split_case(case: str) -> tuple[str, str, str, int, str]:
    """(declarations, loop variable, loads, trips, transform) of one warp case: its int
    declarations, then one tile loop whose body loads the input tile, then transforms it."""
    loops = find_loops(case)
    outer = [loop for loop in loops if not any(o.contains(loop.start) for o in loops)]
    if len(outer) != 1 or case[outer[0].end:].strip():
        raise ReconstructError("a warp case is not one tile loop after its declarations")
    loop = outer[0]
    decls = case[:loop.start]
    pragma = regex.compile(r"[ ]*#pragma unroll.*\n")
    decl_lines = [ln for ln in decls.splitlines(keepends=True) if not pragma.fullmatch(ln)]
    if not all(INT_DECL.fullmatch(ln) for ln in decl_lines):
        raise ReconstructError("a warp case declares more than ints before its tile loop")
    inner = case[case.index("\n", loop.open) + 1:line_span(case, loop.close)[0]]
    reads = list(_INPUT.finditer(inner))
    if not reads:
        raise ReconstructError("the tile loop does not read the input x")
    store = _TILE_STORE.search(inner, reads[-1].start())
    if store is None:
        raise ReconstructError("the last input load does not fill a tile array")
    cut = inner.index("\n", store.end()) + 1
    return "".join(decl_lines), loop.var, inner[:cut], loop.extent, inner[cut:]


def _tile_bytes(loads: str, body: str) -> int:
    """Bytes of the local array one trip's loads fill."""
    line = _tile_array(loads, body)[1]
    decl = _DECL.fullmatch(line)
    if decl is None:
        raise ReconstructError(f"cannot size the input-tile array: {line}")
    return type_bytes(decl["type"], SCALAR_BYTES) * int(decl["count"])


def _tile_array(loads: str, body: str) -> tuple[str, str]:
    """The local array the loads fill, and its declaration's line in body."""
    names = {m["name"] for m in _TILE_STORE.finditer(loads)}
    if len(names) != 1:
        raise ReconstructError(f"the loads fill {sorted(names)}, not one input-tile array")
    name = names.pop()
    decl = regex.search(rf"^[ ]*alignas\(\d+\) [\w ]+ {name}\[\d+\];\n", body, regex.M)
    if decl is None:
        raise ReconstructError(f"no local array declaration for {name}")
    return name, decl.group().strip()


@named_pass
def whole_tile_itrans(fused: Kernel, alpha: int, k_split: int = 1) -> Kernel:
    """fused (its ITrans specialised per warp) with warp w transforming whole input tiles in
    trips w, w + alpha, ... of the tile loop, and a block barrier after (and, per channel chunk,
    one between the loads and the transforms). k_split: the block will hold that many groups of
    alpha warps (threadIdx.z, reconstructor.persist) sharing the tile block, so its alpha *
    k_split warps share the trips."""
    body = fused.body
    found = _itrans_switch(body)
    if found is None:
        raise ReconstructError(f"{fused.name}: ITrans is not one per-warp switch, outside every "
                               "loop or in the channel chunk loop (specialised)")
    switch, parts, switch_end, chunked = found
    if len(parts) != alpha:
        raise ReconstructError(f"{len(parts)} warp cases for {alpha} warps")
    loads = {p[2] for p in parts}
    trip_vars, trip_counts = {p[1] for p in parts}, {p[3] for p in parts}
    if len(loads) != 1 or len(trip_vars) != 1 or len(trip_counts) != 1:
        raise ReconstructError("the warp cases load different input tiles")
    (load,), (trip,), (trips,) = loads, trip_vars, trip_counts
    # One copy of the loads serves every warp: it may read only declarations all cases share.
    values = [{m["name"]: m["value"] for m in INT_DECL.finditer(p[0])} for p in parts]
    differing = {n for v in values for n in v if len({w.get(n) for w in values}) > 1}
    if differing & set(_IDENTIFIER.findall(load)):
        raise ReconstructError(f"the loads read {sorted(differing)}, which differ per warp")
    barrier = regex.compile(rf"{switch['i']}__syncwarp\(\);\n").match(body, switch_end)
    if barrier is None:
        raise ReconstructError("no warp barrier follows the ITrans part")
    array, array_decl = _tile_array(load, body)
    scoped = declared_names(load) & {n for p in parts for n in _IDENTIFIER.findall(p[4])}
    if scoped:  # each trip's loads are a block of their own, closed before the transforms
        raise ReconstructError(f"the transform reads {sorted(scoped)}, declared by the loads")
    indent = switch["i"]
    inner = indent + "  "
    warps, warp, named = alpha * k_split, "((int)threadIdx.y)", "threadIdx.y"
    if k_split > 1:
        warp = f"(((int)threadIdx.z) * {alpha} + ((int)threadIdx.y))"
        named = f"threadIdx.z * {alpha} + threadIdx.y"
    text = [f"{indent}// {WHOLE_TILES_MARK} warp {named} transforms whole input tiles (every\n",
            f"{indent}// tap column) in trips {named}, {named} + {warps}, ...; every "
            "trip's loads first.\n", f"{indent}{{\n"]
    rounds = range(-(-trips // warps))

    def trip_block(r: int, decls: str, code: str) -> list[str]:
        """Trip r * warps + warp of the tile loop: its declarations, then code on its array;
        in a last, partial round only for the warps that have a trip left."""
        code = regex.sub(rf"\b{array}\b", f"{array}_{r}", code)
        left = trips - r * warps
        head = f"if ({warp} < {left}) {{" if left < warps else "{"
        return [f"{inner}{head}\n", f"{inner}  int {trip} = {r * warps} + {warp};\n",
                reindent(decls, indent_of(decls, 0), inner + "  "),
                reindent(code, indent_of(code, 0), inner + "  "), f"{inner}}}\n"]

    for r in rounds:
        text.append(inner + regex.sub(rf"\b{array}\b", f"{array}_{r}", array_decl) + "\n")
        text += trip_block(r, parts[0][0], load)
    if chunked:  # the last chunk's MMA may still read the V slice in other warps
        text.append(f"{inner}{SYNCTHREADS}\n")
    for r in rounds:
        for decls, _, _, _, transform in parts:
            text += trip_block(r, decls, transform)
    text += [f"{indent}}}\n", f"{indent}{SYNCTHREADS}\n"]
    head = _SPECIALISED.sub("", body[:switch.start()]).replace(
        SYNC_FREE_NOTE, "(whole tiles per warp, below: a block barrier follows).")
    return Kernel(fused.name, fused.launch_bounds, fused.params,
                  head + "".join(text) + body[barrier.end():])

