"""U in fragment order (8-bit B fragments from L2): one load per lane and fragment.

With U from L2 (ul2) each load_matrix_sync of an int8 16x16 B fragment reads U's (taps x K, C)
rows directly: per lane two 4-byte loads 8 rows apart, one warp load spanning 512 bytes. On the
H100 these took 28% of the 960^2 int8 kernel's stall samples (experiments:
round_pipeline_ab). KTrans runs once per weight, so a weight-time kernel rewrites U with each
fragment's bytes in the order the lanes hold them; the forward kernel then loads one word per
lane from the fragment's contiguous bytes. WMMA leaves which element a lane holds unspecified,
so the rewriting kernel learns it from load_matrix_sync itself: it loads each fragment as the
forward kernel did and stores every lane's storage unchanged. Only for 8-bit fragments, whose
lanes hold each element once (fp16 fragments hold some twice).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import regex

from .errors import ReconstructError
from .identify import BALANCED, U
from .launch import Launch
from .source import Kernel, Param
from .text import named_pass

KERNEL = "u_fragment_order_kernel"
U_KC = "U_kc_ptr"  # KTrans's output: U as (taps x K, C) rows, C fastest
_WARPS = 4  # fragments per block of the rewriting kernel
_B_FRAGMENT = regex.compile(
    r"nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, (?P<m>\d+), (?P<n>\d+), (?P<k>\d+), "
    r"(?P<ctype>signed char|unsigned char), nvcuda::wmma::col_major> (?P<name>\w+)\["
)
_U_LOAD = regex.compile(
    BALANCED + r"nvcuda::wmma::load_matrix_sync\((?P<frag>(?P<name>\w+)(?&brk)), "
    r"\(&\(U_ptr(?P<index>(?&brk))\)\), (?P<ldm>\d+)\);"
)
_WORDS = {4: "int", 8: "int2", 16: "int4"}


@dataclass(frozen=True)
class BFragment:
    """The WMMA shape and 8-bit type of the B fragments a kernel loads from U."""

    m: int
    n: int
    k: int
    ctype: str
    ldm: int  # U's row length, C

    @property
    def lane_bytes(self) -> int:
        """One lane's share of the k x n bytes."""
        return self.k * self.n // 32

    @property
    def word(self) -> str:
        """The vector type that loads one lane's share at once."""
        return _WORDS[self.lane_bytes]


def _fragment(kernel: Kernel) -> BFragment | None:
    """The 8-bit B fragments kernel loads straight from U, or None (U staged, or 16-bit)."""
    loads = list(_U_LOAD.finditer(kernel.body))
    if not loads:
        return None
    types = {m["name"]: m for m in _B_FRAGMENT.finditer(kernel.body)}
    shapes = set()
    for load in loads:
        decl = types.get(load["name"])
        if decl is None:
            return None  # a 16-bit fragment: its lanes repeat elements
        shapes.add((int(decl["m"]), int(decl["n"]), int(decl["k"]), decl["ctype"],
                    int(load["ldm"])))
    if len(shapes) != 1:
        raise ReconstructError(f"{kernel.name} loads B fragments of several shapes: {shapes}")
    return BFragment(*shapes.pop())


def orders_u(kernel: Kernel) -> bool:
    """Whether kernel loads 8-bit B fragments straight from U (what this pass rewrites)."""
    return _fragment(kernel) is not None


def _ordered_load(load: regex.Match, frag: BFragment) -> str:
    # The fragment at row r (a multiple of n), column c (of k) of U's (taps x K, C) rows lies at
    # r * C + c * n in fragment order: its offset plus (n - 1) times its column.
    # Unsigned, so that nvcc folds the column's terms that are multiples of C (signed % keeps
    # them: 1880 -> 2376 SASS instructions in the 960^2 kernel).
    offset = f"({load['index'][1:-1]})"
    column = f"((int)(((unsigned){offset}) % {frag.ldm}))"
    address = f"U_ptr + {offset} + {frag.n - 1} * {column}"
    return (f"*({frag.word}*){load['frag']}.x = "
            f"*(const {frag.word}*)({address} + ((int)threadIdx.x) * {frag.lane_bytes});")


def _ordered_loads(kernel: Kernel, launch: Launch, frag: BFragment) -> Kernel:
    """kernel with each B-fragment load from U one word per lane of U in fragment order."""
    if launch.block[0] != 32:
        raise ReconstructError(f"{kernel.name}: threadIdx.x must be the lane (block x 32, "
                               f"not {launch.block[0]})")
    body = _U_LOAD.sub(lambda m: _ordered_load(m, frag), kernel.body)
    return Kernel(kernel.name, kernel.launch_bounds, kernel.params, body)


def _rewriting_kernel(frag: BFragment, count: int) -> Kernel:
    fragment_type = (f"nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, {frag.m}, {frag.n}, "
                     f"{frag.k}, {frag.ctype}, nvcuda::wmma::col_major>")
    body = f"""\
  // One warp per B fragment: loaded from U's rows as the forward kernel used to, stored where
  // its one load per lane finds it (reconstructor.fragment_order).
  int fragment = (((int)blockIdx.x) * {_WARPS}) + ((int)threadIdx.y);
  if (fragment < {count}) {{
    int row = (fragment / {frag.ldm // frag.k}) * {frag.n};
    int col = (fragment % {frag.ldm // frag.k}) * {frag.k};
    {fragment_type} b;
    nvcuda::wmma::load_matrix_sync(b, (&({U_KC}[((row * {frag.ldm}) + col)])), {frag.ldm});
    *({frag.word}*)(U_ptr + (row * {frag.ldm}) + (col * {frag.n}) + (((int)threadIdx.x) * \
{frag.lane_bytes})) = *({frag.word}*)b.x;
  }}
"""
    pointer = f"{frag.ctype}* __restrict__"
    return Kernel(KERNEL, 32 * _WARPS, (Param(pointer, U), Param(pointer, U_KC)), body)


Pair = tuple[Kernel, Launch]


@named_pass
def fragment_order_u(forward: Pair, ktrans: list[Pair], rows: int) -> tuple[Pair, list[Pair]]:
    """The forward kernel loading U in fragment order, and the weight kernels: KTrans writing
    U_kc instead of U, then the kernel that rewrites U_kc's rows (taps x K of them) into U."""
    forward_kernel, forward_launch = forward
    frag = _fragment(forward_kernel)
    if frag is None:
        raise ReconstructError(f"{forward_kernel.name} loads no 8-bit B fragments from {U}")
    if rows % frag.n or frag.ldm % frag.k:
        raise ReconstructError(f"U's {rows} x {frag.ldm} rows do not tile into {frag.n} x "
                               f"{frag.k} fragments")
    writers = [k for k, _ in ktrans if U in k.param_names()]
    if len(writers) != 1:
        raise ReconstructError(f"{len(writers)} KTrans kernels take {U}")
    weight = [_writing_u_kc(k, launch) if k is writers[0] else (k, launch)
              for k, launch in ktrans]
    count = rows // frag.n * (frag.ldm // frag.k)
    weight.append((_rewriting_kernel(frag, count),
                   Launch(KERNEL, ("U", "U_kc"), (-(-count // _WARPS), 1, 1), (32, _WARPS, 1),
                          0)))
    return (_ordered_loads(forward_kernel, forward_launch, frag), forward_launch), weight


def _writing_u_kc(kernel: Kernel, launch: Launch) -> Pair:
    """KTrans's U writer with U renamed U_kc, in its parameters, body and launch."""
    params = tuple(Param(p.ctype, U_KC if p.name == U else p.name) for p in kernel.params)
    body = regex.sub(rf"\b{U}\b", U_KC, kernel.body)
    names = tuple("U_kc" if name == "U" else name for name in launch.params)
    return (Kernel(kernel.name, kernel.launch_bounds, params, body),
            replace(launch, params=names))
