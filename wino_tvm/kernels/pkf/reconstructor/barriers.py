"""Barrier sites of a CUDA source, for the GPU search that deletes barriers one at a time."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import regex

from .errors import ReconstructError
from .source import kernel_spans

_BARRIER = regex.compile(r"^[ ]*(?P<call>__syncthreads|__syncwarp)\(\);$", regex.M)


@dataclass(frozen=True)
class Site:
    """A kernel's index-th barrier (from 0), on 1-based line `line` of the source."""

    kernel: str
    index: int
    line: int
    call: str


def barrier_sites(source: str) -> list[Site]:
    """Every `__syncthreads();` / `__syncwarp();` statement, per kernel, in source order."""
    _, spans = kernel_spans(source)
    sites = []
    for span in spans:
        body = source[:span.body_end]
        for index, m in enumerate(_BARRIER.finditer(body, span.body_start)):
            sites.append(Site(span.kernel.name, index, body.count("\n", 0, m.start()) + 1,
                              m["call"]))
    return sites


def remove_barriers(source: str, sites: Iterable[Site]) -> str:
    """The source without the given barrier statements (each must be a current site of it)."""
    current = set(barrier_sites(source))
    drop = set()
    for site in sites:
        if site not in current:
            raise ReconstructError(f"remove_barriers: {site} is not a barrier of this source")
        drop.add(site.line)
    lines = source.splitlines(keepends=True)
    return "".join(line for number, line in enumerate(lines, 1) if number not in drop)
