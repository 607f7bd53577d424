"""Full fusion (beyond the paper): ITrans + BGEMM + OTrans in one kernel.

In the sync-free mapping each block already holds every alpha^2 GEMM batch of its TB_M tiles x
TB_N channels, so after the channel loop it stores its accumulators into shared memory in the
layout OTrans stages M in, and OTrans's compute part turns them into NHWC outputs. Neither V nor
M touches global memory. The shared M layout is read off OTrans's own copy (fitted, then checked
on every element), not assumed.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import regex

from wino_tvm.math.winograd import transform_matrices_exact

from .cblocks import Loop, enclosing_loops, find_loops, indent_of, line_span, reindent
from .cexpr import compile_int_expr, identifiers
from .errors import ReconstructError
from .identify import BALANCED
from .launch import Launch, buffer_name
from .passes import byte_view, fuse_shmem
from .source import Kernel, Param
from .specialise import start_sums_at_first_term
from .text import (
    IDENT,
    SCALAR_BYTES,
    SHARED_DECL,
    SYNCTHREADS,
    VECTOR_BYTES,
    cut_at_barrier,
    declared_names,
    exactly_one,
    find_copies,
    named_pass,
    thread_points,
    type_bytes,
)

FULL_KERNEL = "winograd_full_kernel"
FULL_MARK = "Full fusion:"
M = "M_ptr"
PREFIX = "ot_"
_STORE = regex.compile(
    BALANCED
    + r"^(?P<indent>[ ]*)nvcuda::wmma::store_matrix_sync\(\(&\(M_ptr\[(?P<index>.+)\]\)\), "
    r"(?P<frag>[^,]+), (?P<ld>\d+), nvcuda::wmma::mem_row_major\);$",
    regex.M,
)
_BLOCK_VARS = ("blockIdx.x", "blockIdx.y")
# Locals of the in-register A^T (one combined fragment, its element index).
_ROW_FRAGMENT, _ELEMENT = "at_z", "at_e"
# Elements per lane of every WMMA accumulator shape (16x16, 32x8, 8x32: 256 over 32 lanes); a
# literal bound keeps the loop a plain counted one (cblocks.find_loops), a static_assert checks it.
_ACC_ELEMENTS = 256 // 32


@dataclass(frozen=True)
class _Otrans:
    """OTrans cut at its one block barrier: stage M in shared memory, then compute y."""

    kernel: Kernel
    shared: str
    ctype: str
    arrays: str
    compute: str
    strides: tuple[int, int, int]  # shared elements per tap row h, tap column w, tile row


def _affine(expr: str, names: list[str]) -> tuple[int, dict[str, int]]:
    """(constant, coefficient per name) of an index expression, checked to be affine."""
    f = compile_int_expr(expr)
    zero = dict.fromkeys(names, 0)
    const = f(zero)
    coef = {n: f({**zero, n: 1}) - const for n in names}
    for values in itertools.product((0, 1, 3), repeat=len(names)):
        env = dict(zip(names, values, strict=True))
        if f(env) != const + sum(coef[n] * env[n] for n in names):
            raise ReconstructError(f"index {expr!r} is not affine in {names}")
    return const, coef


def _radix(value: int, strides: tuple[int, ...]) -> list[int]:
    """Digits of value in the mixed radix of strides (largest first, last stride 1)."""
    digits = []
    for s in strides:
        digits.append(value // s)
        value %= s
    return digits


def _analyse_otrans(otrans: Kernel, block: tuple[int, int, int],
                    global_strides: tuple[int, int, int]) -> _Otrans:
    """Cut OTrans at its barrier and fit the shared layout of its M copy."""
    staged = cut_at_barrier(otrans, "OTrans", "stage M | compute y")
    decl, head = staged.decl, staged.before
    compute = staged.after[line_span(staged.after, 0)[1]:]  # after the barrier line
    if regex.search(rf"(?<![\w.]){M}\b", compute):
        raise ReconstructError(f"OTrans reads {M} after its barrier; expected only shared M")
    copy = exactly_one([c for c in find_copies(head)
                        if c.src.name == M and c.dst.name == decl["name"]],
                       f"copy {M} -> {decl['name']} in OTrans")
    width = 1
    if copy.vtype is not None:
        width = type_bytes(copy.vtype, VECTOR_BYTES) // type_bytes(decl["ctype"], SCALAR_BYTES)
    points = {
        (g + j, s + j)
        for _, g, s in thread_points([copy.src.index, copy.dst.index],
                               enclosing_loops(find_loops(head), copy.start), block,
                               dict.fromkeys(_BLOCK_VARS, 0))
        for j in range(width)
    }
    # Fit s = a_h h + a_w w + a_t t + k (block (0, 0): tile and channel are block-local).
    by_digits = {tuple(_radix(g, (*global_strides, 1))): s for g, s in points}
    try:
        origin = by_digits[(0, 0, 0, 0)]
        strides = tuple(by_digits[unit] - origin for unit in ((1, 0, 0, 0), (0, 1, 0, 0),
                                                              (0, 0, 1, 0)))
    except KeyError:
        raise ReconstructError("OTrans's M copy does not cover a whole tap x tile slice") from None
    if origin != 0 or any(
        s != sum(a * d for a, d in zip((*strides, 1), digits, strict=True))
        for digits, s in by_digits.items()
    ):
        raise ReconstructError("OTrans's shared M layout is not [h, w, tile, channel] "
                               "with a fixed row stride")
    return _Otrans(otrans, decl["name"], decl["ctype"], staged.arrays, compute, strides)


def output_rows(alpha: int) -> list[tuple[int, list[int]]]:
    """For applying A^T to the accumulators in registers: per output row i, the tap row r_i to
    stage it at and the coefficients c[h] (of accumulator row h) such that OTrans's own A^T
    over rows that are zero except r_i gives back A^T M's row i. That needs A[r_i] = +-e_i,
    true for F(2x2) (rows 0 and 3), not for F(4x4)."""
    m = alpha - 2
    a, _, _ = transform_matrices_exact(m)
    out = []
    for i in range(m):
        rows = [r for r in range(alpha)
                if abs(a[r][i]) == 1 and all(a[r][j] == 0 for j in range(m) if j != i)]
        if not rows:
            raise ReconstructError(f"F({m}x{m})'s A has no row +-e_{i}: A^T cannot be applied "
                                   "to the accumulators in registers")
        coef = [a[rows[0]][i] * a[h][i] for h in range(alpha)]
        if any(c not in (-1, 0, 1) for c in coef):
            raise ReconstructError(f"F({m}x{m})'s A^T has entries other than 0, +-1")
        out.append((rows[0], [int(c) for c in coef]))
    return out


def _sub_var(text: str, var: str, value: int) -> str:
    return regex.sub(rf"(?<![\w.]){regex.escape(var)}\b", str(value), text)


def _rows_in_registers(body: str, outer, store, base: str, index: str, ld: int,
                       rows: list[tuple[int, list[int]]]) -> str:
    """The accumulator store loop (outer: over tap rows h) with A^T applied in registers: per
    output row (output_rows) one fragment combined from the alpha accumulators, staged at its
    row."""
    taken = set(IDENT.findall(body))
    if {_ROW_FRAGMENT, _ELEMENT} & taken:
        raise ReconstructError(f"the fused kernel already uses {_ROW_FRAGMENT} or {_ELEMENT}")
    indent = store["indent"]
    frags = [_sub_var(store["frag"], outer.var, h) for h in range(outer.extent)]
    copies = []
    for row, coef in rows:
        terms = "".join(f" {'+' if c > 0 else '-'} {f}.x[{_ELEMENT}]"
                        for c, f in zip(coef, frags, strict=True) if c)
        combined = (
            f"{indent}{{\n"
            f"{indent}  auto {_ROW_FRAGMENT} = {frags[0]};\n"
            f"{indent}  static_assert(decltype({_ROW_FRAGMENT})::num_elements == {_ACC_ELEMENTS}, "
            f'"WMMA accumulator elements per lane");\n'
            f"{indent}  for (int {_ELEMENT} = 0; {_ELEMENT} < {_ACC_ELEMENTS}; ++{_ELEMENT}) {{\n"
            f"{indent}    {_ROW_FRAGMENT}.x[{_ELEMENT}] = {terms.removeprefix(' + ').strip()};\n"
            f"{indent}  }}\n"
            f"{indent}  nvcuda::wmma::store_matrix_sync((&({base}[{index}])), {_ROW_FRAGMENT}, "
            f"{ld}, nvcuda::wmma::mem_row_major);\n"
            f"{indent}}}"
        )
        inner = body[outer.open + 1:store.start()] + combined + body[store.end():outer.close]
        copies.append(indent_of(body, outer.start) + "{" + _sub_var(inner, outer.var, row) + "}\n")
    return "".join(copies)


def _drop_zero_rows(tail: str, view: str, row_stride: int, kept: set[int]) -> str:
    """OTrans's reads of staged M rows outside kept (zero after _rows_in_registers) as 0: scalar
    reads `((float)view[i])` and the vector reads `*(floatN*)(view + i)` of its tap copy."""
    read = regex.compile(
        BALANCED + r"(?:(?P<cast>\(\(float\))?" + regex.escape(view) + r"(?P<index>(?&brk))"
        r"(?(cast)\))|\*\((?P<vtype>float(?P<lanes>[24]))\*\)\(" + regex.escape(view)
        + r" \+ (?P<vindex>(?&bal))\))"
    )

    def zero(match: regex.Match) -> str:
        index = (match["index"] or match["vindex"])[1:-1]
        row = compile_int_expr(index)(dict.fromkeys(identifiers(index), 0)) // row_stride
        if row in kept:
            return match.group()
        if match["vtype"]:
            return f"make_{match['vtype']}({', '.join(['0x0p+0f'] * int(match['lanes']))})"
        return "0x0p+0f"

    dropped = read.sub(zero, tail)
    if dropped.count(view) != len(list(read.finditer(dropped))):
        raise ReconstructError(f"OTrans reads the staged M ({view}) in a form other than "
                               "((float)M[i]) or *(floatN*)(M + i)")
    return dropped


def _round_stores(stored: str, loop: Loop, frag_array: str, rounds: int, r: int) -> str:
    """The accumulator store loop nest for M round r of rounds: the channel loop (loop; one copy
    per output row with A^T in registers) over its r-th 1/rounds, counting from 0 in the round's
    slice, the fragments it stores shifted."""
    part = loop.extent // rounds
    var = loop.var
    header = regex.compile(rf"for \(int {var} = 0; {var} < {loop.extent}; \+\+{var}\)")
    if not header.search(stored):
        raise ReconstructError(f"the accumulator store's channel loop {var} is gone")
    text = header.sub(f"for (int {var} = 0; {var} < {part}; ++{var})", stored)
    fragment = regex.compile(BALANCED + rf"(?<![\w.]){regex.escape(frag_array)}(?P<i>(?&brk))")
    return fragment.sub(lambda m: frag_array + _sub_var(m["i"], var, f"({var} + {r * part})"),
                        text)


def _round_block(tail: str, rounds: int, r: int) -> str:
    """OTrans's text for M round r: its channel block blockIdx.y is the BGEMM block's r-th."""
    block = "((int)blockIdx.y)"
    if tail.count("blockIdx.y") != tail.count(block):
        raise ReconstructError(f"OTrans reads blockIdx.y other than as {block}")
    return tail.replace(block, f"(({block} * {rounds}) + {r})")


def _adapt(ot: _Otrans, text: str, buffer: str, taken: set[str]) -> str:
    """OTrans text inside the fused kernel: locals prefixed, its shared M rebased onto buffer."""
    names = declared_names(ot.arrays + ot.compute)
    if any(n.startswith(PREFIX) for n in taken):
        raise ReconstructError(f"the fused kernel already uses names starting with {PREFIX!r}")
    if names:
        pattern = regex.compile(r"(?<![\w.])(?:" + "|".join(sorted(names, reverse=True)) + r")\b")
        text = pattern.sub(lambda m: PREFIX + m.group(), text)
    return regex.sub(rf"(?<![\w.]){ot.shared}\b", byte_view(buffer, ot.ctype), text)


def otrans_span(fused: Kernel) -> tuple[int, int]:
    """The full kernel's OTrans part: after the barrier that follows the M staging, to the end."""
    body = fused.body
    marks = list(regex.finditer(rf"^(?P<i>[ ]*)// {regex.escape(FULL_MARK)}", body, regex.M))
    if len(marks) != 1:
        raise ReconstructError(f"expected one `// {FULL_MARK}` comment in {fused.name}, "
                               f"found {len(marks)}")
    mark = marks[0]
    barriers = list(regex.finditer(rf"^{mark['i']}{regex.escape(SYNCTHREADS)}\n", body, regex.M,
                                   pos=mark.end()))
    if len(barriers) < 2:
        raise ReconstructError(f"no barrier after the M staging in {fused.name}")
    return barriers[1].end(), len(body)


@named_pass
def fold_otrans_sums(full: Kernel) -> Kernel:
    """The full kernel's OTrans with each sum of A^T M A started at its first term instead of 0:
    12 of 36 FADD per (tile, channel) at m=2, where OTrans is issue-bound (docs/performance.md)."""
    start, end = otrans_span(full)
    body = full.body[:start] + start_sums_at_first_term(full.body[start:end]) + full.body[end:]
    return Kernel(full.name, full.launch_bounds, full.params, body)


@named_pass
def fuse_full(itrans: Kernel, bgemm: Kernel, otrans: Kernel, itrans_launch: Launch,
              bgemm_launch: Launch, otrans_launch: Launch,
              rows_in_registers: bool = False) -> tuple[Kernel, Launch]:
    """ITrans+BGEMM as in PKF-Shmem, then accumulators -> shared M -> OTrans -> y, in as many
    rounds as OTrans has channel blocks per BGEMM block (each its share of the channels).
    rows_in_registers: apply A^T over the tap rows to the accumulators (output_rows) and stage
    m rows instead of alpha; only for OTrans without per-tap dequantisation (not int8)."""
    (ox, oy, oz), (bx, by, bz) = otrans_launch.grid, bgemm_launch.grid
    rounds = oy // by
    if ((ox, oz) != (bx, bz) or oy != rounds * by
            or otrans_launch.block != bgemm_launch.block):
        raise ReconstructError(
            f"OTrans launches {otrans_launch.grid}x{otrans_launch.block}, the BGEMM "
            f"{bgemm_launch.grid}x{bgemm_launch.block}: the blocks must own the same tiles "
            "and a whole number of OTrans channel blocks"
        )
    fused, launch = fuse_shmem(itrans, bgemm, itrans_launch, bgemm_launch)
    body = fused.body
    store = exactly_one(list(_STORE.finditer(body)),
                        f"store_matrix_sync of the accumulators to {M}")
    loops = enclosing_loops(find_loops(body), store.start())
    names = [*_BLOCK_VARS, "threadIdx.y", *(loop.var for loop in loops)]
    unknown = identifiers(store["index"]) - set(names)
    if unknown:
        raise ReconstructError(f"accumulator store index uses {sorted(unknown)}")
    const, coef = _affine(store["index"], names)
    ld = int(store["ld"])
    # Global M is [h, w, tile, channel]: the warp index steps one tap column, the outermost
    # store loop one tap row (checked below through the fitted layout).
    global_strides = (coef[loops[0].var] if loops else 0, coef["threadIdx.y"], ld)
    if not loops or global_strides[0] <= global_strides[1] or global_strides[1] % ld:
        raise ReconstructError(f"accumulator store strides {global_strides} are not M's")
    ot = _analyse_otrans(otrans, otrans_launch.block, global_strides)
    shared_strides = (*ot.strides, 1)
    buffer = exactly_one(list(SHARED_DECL.finditer(body)),
                         "shared buffer in the fused kernel")["name"]
    terms = []
    for name in names[2:]:
        digits = _radix(coef[name], (*global_strides, 1))
        new = sum(a * d for a, d in zip(shared_strides, digits, strict=True))
        if new:
            terms.append(f"({new} * {name if '.' not in name else f'((int){name})'})")
    if _radix(const, (*global_strides, 1)) != [0, 0, 0, 0]:
        raise ReconstructError(f"accumulator store has a constant offset {const}")
    index = " + ".join(terms) or "0"
    base = byte_view(buffer, ot.ctype)
    new_store = (f"{store['indent']}nvcuda::wmma::store_matrix_sync((&({base}[{index}])), "
                 f"{store['frag']}, {ot.strides[2]}, nvcuda::wmma::mem_row_major);")
    outer = loops[0]
    indent = indent_of(body, outer.start)
    epilogue_indent = indent_of(otrans.body, 0)
    tail = _adapt(ot, ot.compute, buffer, set(IDENT.findall(body)))
    arrays = _adapt(ot, ot.arrays, buffer, set())
    if rows_in_registers:
        if _radix(coef[outer.var], (*global_strides, 1)) != [1, 0, 0, 0]:
            raise ReconstructError(f"the accumulator store loop {outer.var} does not step tap rows")
        rows = output_rows(outer.extent)
        stored = _rows_in_registers(body, outer, store, base, index, ot.strides[2], rows)
        tail = _drop_zero_rows(tail, base, ot.strides[0], {row for row, _ in rows})
    else:
        stored = body[outer.start:store.start()] + new_store + body[store.end():outer.end]
    tail = reindent(tail, epilogue_indent, indent)
    staged = [(stored, tail)]
    if rounds > 1:
        channel = [loop for loop in loops if coef[loop.var]
                   and _radix(coef[loop.var], (*global_strides, 1))[:3] == [0, 0, 0]]
        if len(channel) != 1 or channel[0].extent % rounds:
            raise ReconstructError(f"no accumulator store loop over channels splits into "
                                   f"{rounds} M rounds")
        frag_array = store["frag"].split("[")[0]
        # Each round's OTrans in its own scope: TVM declares locals outside its loop, or
        # without one where a single trip covers the slice.
        staged = [(_round_stores(stored, channel[0], frag_array, rounds, r),
                   f"{indent}{{\n{reindent(_round_block(tail, rounds, r), indent, indent + '  ')}"
                   f"{indent}}}\n") for r in range(rounds)]
    rounds_text = f"\n{indent}{SYNCTHREADS}\n".join(
        f"{stores}\n{indent}{SYNCTHREADS}\n{tail_r}" for stores, tail_r in staged)
    body = (
        body[:outer.start]
        + f"{indent}// {FULL_MARK} the M slice reuses the V/U staging memory once every warp\n"
        + f"{indent}// is done with it; then OTrans reads all alpha^2 taps of each (tile, k)"
        + (f",\n{indent}// in {rounds} rounds of its channels.\n" if rounds > 1 else ".\n")
        + f"{indent}{SYNCTHREADS}\n"
        + rounds_text
        + body[outer.end:]
    )
    decl = exactly_one(list(SHARED_DECL.finditer(body)), "shared buffer in the fused kernel")
    body = body[:decl.end()] + reindent(arrays, epilogue_indent, indent) + body[decl.end():]
    params: dict[str, Param] = {}
    for p in (*fused.params, *otrans.params):
        if p.name != M:
            params.setdefault(p.name, p)
    kernel = Kernel(FULL_KERNEL, bgemm.launch_bounds, tuple(params.values()), body)
    m_bytes = ot.strides[0] * (bgemm_launch.block[1]) * type_bytes(ot.ctype, SCALAR_BYTES)
    shared = max(launch.shared_bytes, otrans_launch.shared_bytes, m_bytes)
    return kernel, Launch(kernel.name, tuple(buffer_name(p.name) for p in kernel.params),
                          launch.grid, launch.block, shared)
