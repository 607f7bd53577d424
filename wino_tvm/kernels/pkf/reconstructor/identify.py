"""Tell the Winograd stages apart by which buffers their kernels write and read, not by name."""

from __future__ import annotations

import graphlib
from collections.abc import Iterable
from dataclasses import dataclass

import regex

from .errors import ReconstructError
from .source import Kernel

# Balanced (...) and [...] for the patterns below.
BALANCED = r"(?(DEFINE)(?<bal>\((?:[^()]++|(?&bal))*+\))(?<brk>\[(?:[^\[\]]++|(?&brk))*+\]))"
# The stores TVM prints: `NAME[i] = v`, `*(uint4*)(NAME + i) = v`, and WMMA's
# `store_matrix_sync((&(NAME[i])), ...)`. `=(?!=)` keeps comparisons out.
_STORES = (
    regex.compile(BALANCED + r"(?<![\w.])(?P<name>\w+)(?&brk)\s*=(?!=)"),
    regex.compile(BALANCED + r"\*\([\w ]+\*\)\((?P<name>\w+)\s*\+(?:[^()]++|(?&bal))*\)\s*=(?!=)"),
    regex.compile(r"store_matrix_sync\([(&\s]*(?P<name>\w+)"),
)
_WORD = regex.compile(r"(?<![\w.])\w+")
_MMA = "mma_sync("
# Buffer names fixed by our TE compute (kernels.pkf.compute); kernel names are TVM's choice.
X, W, V, U, U_SCALE, M, Y = "x_ptr", "w_ptr", "V_ptr", "U_ptr", "U_scale_ptr", "M_ptr", "y_ptr"


@dataclass(frozen=True)
class Access:
    """Which of a kernel's pointer parameters it stores to and loads from."""

    writes: frozenset[str]
    reads: frozenset[str]

    def __str__(self) -> str:
        return f"writes {sorted(self.writes)}, reads {sorted(self.reads)}"


@dataclass(frozen=True)
class Stages:
    """The prototype's kernels by stage; ktrans in dependency order (writer before reader)."""

    itrans: Kernel
    ktrans: tuple[Kernel, ...]
    bgemm: Kernel
    otrans: Kernel


def buffer_access(kernel: Kernel) -> Access:
    """Parameters stored to (any store form above) and read (any other mention)."""
    params = set(kernel.param_names())
    writes, store_spans = set(), set()
    for pattern in _STORES:
        for m in pattern.finditer(kernel.body):
            if m["name"] in params:
                writes.add(m["name"])
                store_spans.add(m.span("name"))
    reads = {m.group() for m in _WORD.finditer(kernel.body)
             if m.group() in params and m.span() not in store_spans}
    return Access(frozenset(writes), frozenset(reads))


def _role(kernel: Kernel, access: Access) -> str | None:
    """The stage a kernel implements, judged by mma_sync and the buffers it writes."""
    if _MMA in kernel.body:
        return "bgemm"
    if V in access.writes:
        return "itrans"
    if Y in access.writes:
        return "otrans"
    if access.writes and access.writes <= {U, U_SCALE}:
        return "ktrans"
    return None


def _dependency_order(kernels: Iterable[Kernel], access: dict[str, Access]) -> tuple[Kernel, ...]:
    """Kernels ordered so each runs after those writing what it reads."""
    by_name = {k.name: k for k in kernels}
    graph = {name: {other for other in by_name
                    if other != name and access[other].writes & access[name].reads}
             for name in by_name}
    try:
        return tuple(by_name[n] for n in graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        raise ReconstructError(f"identify_stages: KTrans kernels depend on each other in a "
                               f"cycle: {exc.args[1]}") from None


def identify_stages(kernels: Iterable[Kernel]) -> Stages:
    """Exactly one ITrans, BGEMM and OTrans and one or two KTrans, else ReconstructError."""
    kernels = tuple(kernels)
    access = {k.name: buffer_access(k) for k in kernels}
    roles: dict[str, list[Kernel]] = {"itrans": [], "ktrans": [], "bgemm": [], "otrans": []}
    found = "; ".join(f"{k.name}: {access[k.name]}" for k in kernels)
    for k in kernels:
        role = _role(k, access[k.name])
        if role is None:
            raise ReconstructError(f"identify_stages: kernel {k.name} is no Winograd stage "
                                   f"({access[k.name]}); kernels: {found}")
        roles[role].append(k)
    wanted = {"itrans": (1, 1), "ktrans": (1, 2), "bgemm": (1, 1), "otrans": (1, 1)}
    for role, (low, high) in wanted.items():
        if not low <= len(roles[role]) <= high:
            raise ReconstructError(
                f"identify_stages: expected {low}..{high} {role} kernel(s), found "
                f"{[k.name for k in roles[role]]}; kernels: {found}"
            )
    (itrans,), (bgemm,), (otrans,) = roles["itrans"], roles["bgemm"], roles["otrans"]
    needs = {itrans.name: ({X}, {V}), bgemm.name: ({V, U}, {M}), otrans.name: ({M}, {Y})}
    for name, (reads, writes) in needs.items():
        if not (reads <= access[name].reads and writes <= access[name].writes):
            raise ReconstructError(
                f"identify_stages: {name} should read {sorted(reads)} and write {sorted(writes)} "
                f"but {access[name]}"
            )
    ktrans = _dependency_order(roles["ktrans"], access)
    if not any(W in access[k.name].reads for k in ktrans):
        raise ReconstructError(f"identify_stages: no KTrans kernel reads {W}; kernels: {found}")
    return Stages(itrans, ktrans, bgemm, otrans)
