"""Warp specialisation of ITrans: the tap column, threadIdx.y, as a compile-time constant.

In the sync-free mapping warp threadIdx.y computes tap column w of every Winograd tile, so TVM
cannot fold the column of the transform matrix B: it prints each term as
`acc = (acc + (d * ((((int)threadIdx.y) == 3) ? 0 : (... ? 1 : -1))))`, and every warp does
alpha generic multiply-adds per output where B (entries 0, +-1, +-2, ...) needs a few adds.
nvcc cannot drop `acc + d * 0.0f` (IEEE: d may be inf or NaN), so hoisting the selects is not
enough. This pass wraps the ITrans compute in `switch ((int)threadIdx.y)` with one case per
tap column, substitutes the case's constant, folds the selects and removes the terms that
multiply by zero. threadIdx.y is warp-uniform (blockDim.x is a multiple of 32), so the switch
never diverges inside a warp.

It runs after the fusion passes, on the part they spliced in: their checks evaluate the ITrans
indices over threadIdx.y, which a constant per case would defeat.
"""

from __future__ import annotations

import regex

from wino_tvm.device import WARP_SIZE

from .cblocks import depth_at, indent_of, reindent
from .errors import ReconstructError
from .identify import BALANCED
from .launch import Launch
from .passes import LLC_MARK, SHMEM_MARK
from .source import Kernel
from .text import DECLARED, LOCAL_ARRAY, SHARED_DECL, named_pass

SPECIALISE_MARK = "Warp specialisation:"
SWITCH_HEAD = "switch ((int)threadIdx.y) {"
_WARP = regex.compile(r"\(\(int\)threadIdx\.y\)")
_SELECT = regex.compile(r"\(\(int\)threadIdx\.y\) == (?P<n>\d+)\)")
_BARRIER = regex.compile(r"\b__sync(?:threads|warp)\(\);")
_TOP_BARRIER = r"(?:__syncthreads|__syncwarp)\(\);\n"
# `((a == b) ? t : f)` with integer a, b: t is one literal or group (TVM parenthesises).
_TERNARY = regex.compile(
    BALANCED + r"\(\((?P<a>-?\d+) == (?P<b>-?\d+)\) \? (?P<t>(?:[^():? ]++|(?&bal))+) : "
    r"(?P<f>(?:[^()]++|(?&bal))+)\)"
)


def _literal(hex_float: str, integer: str) -> str:
    """B's entry as TVM prints it: a hex float with a decimal comment (float32), the same
    wrapped in __float2half_rn (float16), or an int32 literal (int8)."""
    return rf"(?:{hex_float}|__float2half_rn\({hex_float}\)|{integer})"


_ZERO = _literal(r"-?0x0p\+0f/\*-?0\.0+e\+00\*/", "0")
_ONE = _literal(r"0x1p\+0f/\*1\.0+e\+00\*/", "1")
_MINUS_ONE = _literal(r"-0x1p\+0f/\*-1\.0+e\+00\*/", "-1")
# One operand of TVM's fully parenthesised binary expressions: a group, or a name[index].
_OPERAND = r"(?:(?&bal)|[A-Za-z_][\w.]*(?&brk)?)"
_TIMES_ONE = regex.compile(
    BALANCED + rf"\((?:(?P<x>{_OPERAND}) \* {_ONE}|{_ONE} \* (?P<x>{_OPERAND}))\)"
)
_TIMES_MINUS_ONE = regex.compile(
    BALANCED + rf"\((?:(?P<x>{_OPERAND}) \* {_MINUS_ONE}|{_MINUS_ONE} \* (?P<x>{_OPERAND}))\)"
)
# `v = (v + (d * 0));` as a whole line.
_ZERO_TERM = regex.compile(
    BALANCED + rf"^[ ]*(?P<v>[A-Za-z_]\w*(?&brk)?) = \((?P=v) [+-] "
    rf"\((?:{_OPERAND} \* {_ZERO}|{_ZERO} \* {_OPERAND})\)\);\n",
    regex.M,
)
# `v = 0;`, lines that do not mention v, then `v = (v + e);`: the first term initialises v.
_INIT_THEN_ADD = regex.compile(
    BALANCED + rf"^(?P<i>[ ]*)(?P<v>[A-Za-z_]\w*(?&brk)?) = {_ZERO};\n"
    r"(?P<mid>(?:(?![^\n]*(?:[{}]|(?<![\w.])(?P=v)))[^\n]*\n)*?)"
    r"(?P=i)(?P=v) = \((?P=v) \+ (?P<e>.+)\);\n",
    regex.M,
)


def fold_selects(text: str) -> str:
    """Fold every `((a == b) ? t : f)` with integer a and b, innermost chains included."""
    while True:
        text, count = _TERNARY.subn(_branch, text)
        if not count:
            return text


def _branch(m: regex.Match) -> str:
    """The branch a select with a constant condition takes."""
    return m["t"] if int(m["a"]) == int(m["b"]) else m["f"]


def simplify(text: str) -> str:
    """Drop multiplications by +-1, accumulations of products with 0, and the 0 + first term."""
    text = _TIMES_ONE.sub(lambda m: m["x"], text)
    text = _TIMES_MINUS_ONE.sub(lambda m: f"(-{m['x']})", text)
    # Unlike IEEE arithmetic, which nvcc must follow: `v + d * 0` is v only for finite d (inf
    # or NaN d makes it NaN), and `0 + e` is e but for the sign of a zero e. The input tile
    # holds finite values, so V is unchanged.
    text = _ZERO_TERM.sub("", text)
    return start_sums_at_first_term(text)


def start_sums_at_first_term(text: str) -> str:
    """`v = 0; ...; v = (v + e);` as `...; v = e;`: TVM starts each sum at 0, which nvcc must
    keep (0 + e is not e for e = -0); exact but for the sign of a zero sum."""
    return _INIT_THEN_ADD.sub(_first_term, text)


def _first_term(m: regex.Match) -> str:
    """`v = 0; ...; v = (v + e);` as `...; v = e;`, unless e reads v itself."""
    if regex.search(rf"(?<![\w.]){regex.escape(m['v'])}", m["e"]):
        return m.group()
    return f"{m['mid']}{m['i']}{m['v']} = {m['e']};\n"


def specialise_case(text: str, warp: int) -> str:
    """text for warp `warp` alone: threadIdx.y replaced by it, selects folded, simplified."""
    return simplify(fold_selects(_WARP.sub(str(warp), text)))


def _alpha(launch: Launch) -> int:
    """Warps per block (one per tap column); each warp must be whole for the switch."""
    if launch.block[0] % WARP_SIZE:
        raise ReconstructError(f"{launch.name}: blockDim.x {launch.block[0]} is no multiple of "
                               f"{WARP_SIZE}, so threadIdx.y is not warp-uniform")
    return launch.block[1]


def _check_region(body: str, start: int, end: int, alpha: int, what: str) -> None:
    """body[start:end] selects on threadIdx.y < alpha, has no barrier, hides no later name."""
    region = body[start:end]
    columns = {int(m["n"]) for m in _SELECT.finditer(region)}
    if not columns:
        raise ReconstructError(f"no `((int)threadIdx.y) == N` select in {what}; nothing to "
                               "specialise (did TVM fold the transform matrix?)")
    if max(columns) >= alpha:
        raise ReconstructError(f"{what} selects tap column {max(columns)} but the block has "
                               f"only {alpha} warps")
    if _BARRIER.search(region):
        raise ReconstructError(f"{what} holds a barrier; it cannot sit in a per-warp switch")
    # Loop variables (group "loop") are scoped to their loop already.
    declared = {m["name"] for m in DECLARED.finditer(region)
                if m["name"] and depth_at(region, m.start()) == 0}
    later = {m.group() for m in regex.finditer(r"(?<![\w.])[A-Za-z_]\w*", body[end:])}
    if declared & later:  # each case is a scope of its own
        raise ReconstructError(f"{what} declares {sorted(declared & later)}, which the code "
                               "after it reads; a per-warp case would hide them")


def _switch(region: str, alpha: int, indent: str) -> str:
    """region as a switch over the warp index, one specialised case per tap column."""
    lines = [f"{indent}// {SPECIALISE_MARK} warp threadIdx.y computes tap column w only, so\n",
             f"{indent}// B's column is a constant per case (no selects, no products with 0).\n",
             f"{indent}{SWITCH_HEAD}\n"]
    for warp in range(alpha):
        lines.append(f"{indent}case {warp}: {{\n")
        lines.append(reindent(specialise_case(region, warp), indent, indent + "  "))
        lines.append(f"{indent}}} break;\n")
    lines += [f"{indent}default:\n", f"{indent}  __builtin_unreachable();\n", f"{indent}}}\n"]
    return "".join(lines)


def _wrap(kernel: Kernel, start: int, end: int, alpha: int, what: str) -> Kernel:
    """The kernel with body[start:end] (whole lines at one depth) as a per-warp switch."""
    body = kernel.body
    _check_region(body, start, end, alpha, what)
    switch = _switch(body[start:end], alpha, indent_of(body, start))
    return Kernel(kernel.name, kernel.launch_bounds, kernel.params,
                  body[:start] + switch + body[end:])


def compute_span(itrans: Kernel) -> tuple[int, int]:
    """The standalone ITrans's compute part: after its declarations, to its first barrier."""
    body = itrans.body
    start = 0
    while (m := SHARED_DECL.match(body, start) or LOCAL_ARRAY.match(body, start)):
        start = m.end()
    barriers = [m for m in regex.finditer(rf"^[ ]*{_TOP_BARRIER}", body, regex.M, pos=start)
                if depth_at(body, m.start()) == 0]
    if not barriers:
        raise ReconstructError(f"no top-level barrier ends the compute part of {itrans.name}")
    return start, barriers[0].start()


def fused_span(fused: Kernel) -> tuple[int, int]:
    """A fused kernel's ITrans part: after the fusion's comment, to the barrier that ends it."""
    body = fused.body
    marks = list(regex.finditer(
        rf"^(?P<i>[ ]*)// (?:{regex.escape(SHMEM_MARK)}|{regex.escape(LLC_MARK)}).*\n"
        r"(?:(?P=i)//.*\n)*", body, regex.M))
    if len(marks) != 1:
        raise ReconstructError(f"expected one `// {SHMEM_MARK}` or `// {LLC_MARK}` comment "
                               f"marking ITrans in {fused.name}, found {len(marks)}")
    mark = marks[0]
    end = regex.compile(rf"^{mark['i']}{_TOP_BARRIER}", regex.M).search(body, mark.end())
    if end is None or depth_at(body, end.start()) != depth_at(body, mark.start()):
        raise ReconstructError(f"no barrier ends the ITrans part of {fused.name}")
    return mark.end(), end.start()


@named_pass
def specialise_itrans(itrans: Kernel, launch: Launch) -> Kernel:
    """The standalone ITrans kernel (fusion syncfree) with its compute part per warp."""
    return _wrap(itrans, *compute_span(itrans), _alpha(launch), f"{itrans.name}'s compute")


@named_pass
def specialise_fused(fused: Kernel, launch: Launch) -> Kernel:
    """A fused kernel (fusion shmem, llc, full) with its ITrans part per warp."""
    return _wrap(fused, *fused_span(fused), _alpha(launch), f"the ITrans part of {fused.name}")
