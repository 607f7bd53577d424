"""Partial unrolling of a fused kernel's ITrans tile loop, which TVM cannot print.

TVM either keeps a loop or unrolls it completely in its own output; nvcc's `#pragma unroll N`
lets the loads of the next N tile groups issue before the current group's transform waits on
its own, which is the latency the full kernel stalls on (long scoreboard, perf-notes).
"""

from __future__ import annotations

from .cblocks import find_loops, indent_of
from .errors import ReconstructError
from .passes import _named
from .source import Kernel
from .specialise import fused_span


@_named
def unroll_itrans(fused: Kernel, factor: int) -> Kernel:
    """fused with `#pragma unroll factor` before each outermost loop of its ITrans part (once per
    warp case when specialised); a loop of at most `factor` trips is unrolled whole. An ITrans
    part without a loop (one tile group per warp: TVM dropped it) is left as it is."""
    if factor < 2:
        raise ReconstructError(f"unroll factor {factor} must be at least 2")
    body = fused.body
    start, end = fused_span(fused)
    loops = find_loops(body[start:end])
    outermost = [loop for loop in loops
                 if not any(other.contains(loop.start) for other in loops)]
    for loop in reversed(outermost):  # back to front: earlier offsets stay valid
        pos = start + loop.start  # a loop's text starts at its line's start
        pragma = "#pragma unroll" if loop.extent <= factor else f"#pragma unroll {factor}"
        body = body[:pos] + f"{indent_of(body, pos)}{pragma}\n" + body[pos:]
    return Kernel(fused.name, fused.launch_bounds, fused.params, body)
