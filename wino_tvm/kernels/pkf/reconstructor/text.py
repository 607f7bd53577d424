"""The reconstructor's shared CUDA-text helpers: the patterns of TVM's declarations, copies
and WMMA calls, copy and pointer parsing, and the small analyses several passes share."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import regex

from .cblocks import Loop, depth_at, line_span
from .cexpr import compile_int_expr
from .errors import ReconstructError
from .identify import BALANCED
from .source import Kernel

SYNCTHREADS = "__syncthreads();"

SHARED_DECL = regex.compile(
    r"^[ ]*extern __shared__ __align__\((?P<align>\d+)\) (?P<ctype>[\w ]+?) (?P<name>\w+)\[\];\n",
    regex.M,
)
ANY_SHARED = regex.compile(r"\b__shared__\b")
LOCAL_ARRAY = regex.compile(r"^[ ]*alignas\(\d+\) [\w ]+? \w+\[\d+\];\n", regex.M)
# Declarations TVM prints: `T name = v;`, `T name;`, `alignas(64) T name[N];`, `for (int name = `.
DECLARED = regex.compile(
    r"^[ ]*(?:alignas\(\d+\) )?(?!return\b|else\b)(?:(?:signed|unsigned) )?\w+\*? "
    r"(?P<name>\w+)(?:\[\d+\])?(?: = |;$)|\bfor \(int (?P<loop>\w+) = ",
    regex.M,
)
IDENT = regex.compile(r"(?<![\w.])[A-Za-z_]\w*")
WMMA_CALL = regex.compile(r"^[ ]*nvcuda::wmma::\w+\((?P<args>.*)\);$")
BLOCK_Y = regex.compile(r"\bblockIdx\.y\b")
# B fragments loaded straight from global memory (--u-l2): no U slice in shared memory.
U_FROM_L2 = regex.compile(r"load_matrix_sync\([^;]*\bU_ptr\b")
# A copy statement, vector (`*(uint4*)(dst + i) = *(uint4*)(src + j);`) or scalar
# (`dst[i] = src[j];`); dst/src are a buffer or TVM's cast of the byte buffer, ((half*)buf).
BASE = r"(?:\w+|\(\([\w ]+\*\)\w+\))"
VEC_COPY = regex.compile(
    BALANCED + r"^[ ]*\*\((?P<vt>\w+)\*\)(?P<dst>(?&bal)) = \*\((?P=vt)\*\)(?P<src>(?&bal));$",
    regex.M,
)
SCALAR_COPY = regex.compile(
    BALANCED + rf"^[ ]*(?P<dst>{BASE}(?&brk)) = (?P<src>{BASE}(?&brk));$", regex.M
)
VEC_PTR = regex.compile(rf"^\((?P<base>{BASE})(?: \+ (?P<index>.+))?\)$")
SCALAR_PTR = regex.compile(rf"^(?P<base>{BASE})\[(?P<index>.+)\]$")
CAST_BASE = regex.compile(r"^\(\((?P<cast>[\w ]+)\*\)(?P<name>\w+)\)$")
# One `int name = value;` line, as TVM declares its index locals.
INT_DECL = regex.compile(r"[ ]*int (?P<name>\w+) = (?P<value>[^;]*);\n")
SCALAR_BYTES = {"half": 2, "signed char": 1, "unsigned char": 1, "float": 4, "int": 4}
VECTOR_BYTES = {"uint4": 16, "int4": 16, "uint2": 8, "int2": 8, "float4": 16, "float2": 8}
Block = tuple[int, int, int]
F = TypeVar("F", bound=Callable[..., object])


def named_pass(fn: F) -> F:
    """Prefix every ReconstructError raised inside a pass, by it or its helpers, with its name."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ReconstructError as exc:
            raise ReconstructError(f"{fn.__name__}: {exc}") from None

    return wrapper  # type: ignore[return-value]  # same signature, by functools.wraps


@dataclass(frozen=True)
class Pointer:
    """Where a copy reads or writes: buffer, element type of TVM's cast if any, index."""

    name: str
    cast: str | None
    index: str


@dataclass(frozen=True)
class Copy:
    """A copy statement occupying whole line(s) text[start:end]."""

    start: int
    end: int
    vtype: str | None
    dst: Pointer
    src: Pointer


def parse_pointer(text: str, vector: bool) -> Pointer:
    m = (VEC_PTR if vector else SCALAR_PTR).match(text)
    if m is None:
        raise ReconstructError(f"cannot read the address {text!r}")
    base = CAST_BASE.match(m["base"])
    if base:
        return Pointer(base["name"], base["cast"], m["index"] or "0")
    return Pointer(m["base"], None, m["index"] or "0")


def find_copies(text: str) -> list[Copy]:
    """Every copy statement in text, in order."""
    found = []
    for pattern, vector in ((VEC_COPY, True), (SCALAR_COPY, False)):
        for m in pattern.finditer(text):
            vtype = m["vt"] if vector else None
            start, end = line_span(text, m.start())
            found.append(Copy(start, end, vtype, parse_pointer(m["dst"], vector),
                               parse_pointer(m["src"], vector)))
    return sorted(found, key=lambda c: c.start)


def type_bytes(ctype: str, table: dict[str, int]) -> int:
    if ctype not in table:
        raise ReconstructError(f"unknown size of type {ctype!r} (known: {sorted(table)})")
    return table[ctype]


def split_args(args: str) -> list[str]:
    """A call's arguments, split at the commas outside parentheses and brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(args[start:i])
            start = i + 1
    return [*parts, args[start:]]


def check_warp_private(text: str, shared: Sequence[str]) -> None:
    """Every shared-memory access in text must index with threadIdx.y (warp = tap column),
    so no warp reads what another wrote and a warp barrier orders all the shared traffic."""
    names = regex.compile(r"(?<![\w.])(?:" + "|".join(map(regex.escape, shared)) + r")\b")
    for line in text.splitlines():
        if not names.search(line) or SHARED_DECL.match(line + "\n"):
            continue
        call = WMMA_CALL.match(line)
        if call:
            parts = split_args(call["args"])
        elif " = " in line:
            parts = line.split(" = ", 1)
        else:
            raise ReconstructError(f"unrecognised shared-memory access: {line.strip()}")
        for part in parts:
            if names.search(part) and "threadIdx.y" not in part:
                raise ReconstructError(
                    f"shared-memory access {part.strip()!r} does not index with "
                    "threadIdx.y, so warps may share data and a warp barrier is not enough"
                )


def exactly_one(items: list, what: str):
    if len(items) != 1:
        raise ReconstructError(f"expected exactly one {what}, found {len(items)}")
    return items[0]


@dataclass(frozen=True)
class Staged:
    """A transform kernel cut at its one block barrier: the shared buffer's declaration, its
    top-level local arrays (to hoist), the part before the barrier and the barrier + rest."""

    decl: regex.Match
    arrays: str
    before: str
    after: str


def cut_at_barrier(kernel: Kernel, stage: str, parts: str) -> Staged:
    """Split a kernel that stages one shared buffer and has exactly one top-level barrier."""
    body = kernel.body
    decl = exactly_one(list(SHARED_DECL.finditer(body)), f"`extern __shared__` buffer in {stage}")
    if len(ANY_SHARED.findall(body)) != 1:
        raise ReconstructError(f"{stage} declares more shared memory than {decl['name']}")
    body = body[:decl.start()] + body[decl.end():]
    arrays = [m for m in LOCAL_ARRAY.finditer(body) if depth_at(body, m.start()) == 0]
    for m in reversed(arrays):
        body = body[:m.start()] + body[m.end():]
    barriers = [m for m in regex.finditer(regex.escape(SYNCTHREADS), body)
                if depth_at(body, m.start()) == 0]
    barrier = exactly_one(barriers, f"top-level {SYNCTHREADS} in {stage} ({parts})")
    cut = line_span(body, barrier.start())[0]
    return Staged(decl, "".join(m.group() for m in arrays), body[:cut], body[cut:])


def thread_points(exprs: Sequence[str], loops: Sequence[Loop], block: Block,
            fixed: dict[str, int]) -> Iterator[tuple[int, ...]]:
    """(threadIdx.y, *values of exprs) for every thread of a block and every loop iteration."""
    compiled = [compile_int_expr(e) for e in exprs]
    ranges = [range(block[0]), range(block[1]), *(range(loop.extent) for loop in loops)]
    names = ["threadIdx.x", "threadIdx.y", *(loop.var for loop in loops)]
    env = dict(fixed)
    for values in itertools.product(*ranges):
        env.update(zip(names, values, strict=True))
        yield (values[1], *(f(env) for f in compiled))


def declared_names(text: str) -> set[str]:
    """Names that text declares (variables, arrays, loop variables)."""
    return {m["name"] or m["loop"] for m in DECLARED.finditer(text)}

