"""Partial unrolling of a fused kernel's loops, which TVM cannot print.

TVM either keeps a loop or unrolls it completely in its own output; nvcc's `#pragma unroll N`
lets the loads of the next N trips issue before the current trip waits on its own: the input
tile loads of ITrans's tile loop, the residual loads of the full kernel's OTrans loop (the
latency the full kernel stalls on; docs/performance.md).
"""

from __future__ import annotations

from .cblocks import find_loops, indent_of
from .errors import ReconstructError
from .full import otrans_span
from .source import Kernel
from .specialise import fused_span
from .text import named_pass


def _unroll_outermost(fused: Kernel, start: int, end: int, factor: int) -> Kernel:
    """fused with `#pragma unroll factor` before each outermost loop in body[start:end]; a loop
    of at most `factor` trips is unrolled whole."""
    if factor < 2:
        raise ReconstructError(f"unroll factor {factor} must be at least 2")
    body = fused.body
    loops = find_loops(body[start:end])
    outermost = [loop for loop in loops
                 if not any(other.contains(loop.start) for other in loops)]
    for loop in reversed(outermost):  # back to front: earlier offsets stay valid
        pos = start + loop.start  # a loop's text starts at its line's start
        pragma = "#pragma unroll" if loop.extent <= factor else f"#pragma unroll {factor}"
        body = body[:pos] + f"{indent_of(body, pos)}{pragma}\n" + body[pos:]
    return Kernel(fused.name, fused.launch_bounds, fused.params, body)


@named_pass
def unroll_itrans(fused: Kernel, factor: int) -> Kernel:
    """The outermost loops of fused's ITrans part unrolled by factor (once per warp case when
    specialised). An ITrans part without a loop (one tile group per warp: TVM dropped it) is
    left as it is."""
    return _unroll_outermost(fused, *fused_span(fused), factor)


@named_pass
def unroll_otrans(full: Kernel, factor: int) -> Kernel:
    """The outermost loops of the full kernel's OTrans part (after the M staging) unrolled by
    factor."""
    return _unroll_outermost(full, *otrans_span(full), factor)
