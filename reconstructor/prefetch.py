"""L2 prefetch of the next tile block's input (and residual) rows in a persistent full kernel.

A persistent block (reconstructor.persist) knows which tile block it computes next: tile_block
plus its step. Its ITrans then waits on the first touch of that block's input rows in DRAM (the
4-warp 960^2 kernel is latency-bound, long-scoreboard stalls second, docs/perf-notes.md). At the
top of each trip every thread issues `prefetch.global.L2` for a share of the 128-byte lines the
next tile block reads: for each of its tiles, the alpha input rows of the tile's own m columns
(the overlapping columns are a neighbour's own), and with a residual the tile's m output rows.
TVM's text does not say where tiles lie, so the caller passes the geometry (TileGeometry).
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from .errors import ReconstructError
from .launch import Launch
from .passes import _named
from .persist import TILE_BLOCK
from .source import Kernel

LINE_BYTES = 128
PREFETCH_MARK = "L2 prefetch:"
_LOOP_HEAD = regex.compile(rf"^(?P<indent>[ ]*)while \({TILE_BLOCK} < (?P<tiles>\d+)\) \{{\n",
                           regex.M)
_STEP = regex.compile(rf"^[ ]*{TILE_BLOCK} \+= (?P<step>.+);$", regex.M)
_ELEMENT_BYTES = {"half": 2, "signed char": 1, "float": 4}


@dataclass(frozen=True)
class TileGeometry:
    """Where tiles lie in NHWC memory: the convolution's N, H, W, C, K, the output tile size m
    and the tiles per block. Each image's TH x TW tiles are padded to a multiple of tb_m
    (wino_tvm.workload): tile t is image t / P, row (t % P) / TW, column (t % P) % TW, and
    real where t % P < TH TW."""

    n: int
    h: int
    w: int
    c: int
    k: int
    m: int
    tb_m: int

    @property
    def tiles_h(self) -> int:
        return -(-self.h // self.m)

    @property
    def tiles_w(self) -> int:
        return -(-self.w // self.m)

    @property
    def per_image(self) -> int:
        """P: an image's tiles, padded to a multiple of tb_m."""
        return -(-self.tiles_h * self.tiles_w // self.tb_m) * self.tb_m


def _element_bytes(kernel: Kernel, name: str) -> int:
    param = next((p for p in kernel.params if p.name == name), None)
    if param is None:
        raise ReconstructError(f"{kernel.name} has no parameter {name}")
    ctype = param.ctype.split("*")[0].strip()
    if ctype not in _ELEMENT_BYTES:
        raise ReconstructError(f"{kernel.name}: {name} has element type {ctype!r}")
    return _ELEMENT_BYTES[ctype]


def _rows(geo: TileGeometry, what: str, ptr: str, channels: int, elem: int, rows: int,
          first_row: int, threads: int) -> list[str]:
    """C lines prefetching, for each tile of the next block, `rows` rows of its m own columns."""
    row_bytes = geo.m * channels * elem
    lines = -(-row_bytes // LINE_BYTES)
    items = geo.tb_m * rows * lines
    i = f"pf_{what}_item"
    return [
        f"for (int {i} = pf_thread; {i} < {items}; {i} += {threads}) {{",
        f"  const int pf_t = (pf_next * {geo.tb_m} + {i} % {geo.tb_m}) % {geo.per_image};",
        f"  const int pf_image = (pf_next * {geo.tb_m}) / {geo.per_image};",
        f"  const int pf_y = (pf_t / {geo.tiles_w}) * {geo.m} + {first_row}"
        f" + ({i} / {geo.tb_m}) % {rows};",
        f"  const int pf_x = (pf_t % {geo.tiles_w}) * {geo.m};",
        f"  const int pf_byte = ({i} / {geo.tb_m * rows}) * {LINE_BYTES};",
        # Padding tiles, rows in the zero padding and columns past W read nothing.
        f"  if (pf_t < {geo.tiles_h * geo.tiles_w} && 0 <= pf_y && pf_y < {geo.h} && "
        f"pf_byte < min({geo.w} - pf_x, {geo.m}) * {channels * elem}) {{",
        f"    const char* pf_p = (const char*)({ptr}) + (((long long)pf_image * {geo.h} + pf_y)"
        f" * {geo.w} + pf_x) * {channels * elem} + pf_byte;",
        '    asm volatile("prefetch.global.L2 [%0];" :: "l"(pf_p));',
        "  }",
        "}",
    ]


@_named
def prefetch_next_tiles(kernel: Kernel, launch: Launch, geo: TileGeometry) -> Kernel:
    """kernel (persistent, reconstructor.persist) with an L2 prefetch of its next tile block's
    input rows, and residual rows where it reads a residual, at the top of each trip."""
    body = kernel.body
    head = list(_LOOP_HEAD.finditer(body))
    steps = list(_STEP.finditer(body))
    if len(head) != 1 or len(steps) != 1:
        raise ReconstructError(f"{kernel.name} is not a persistent kernel (one loop over "
                               f"{TILE_BLOCK}, one step)")
    if int(head[0]["tiles"]) * geo.tb_m != geo.n * geo.per_image:
        raise ReconstructError(f"{kernel.name}: {head[0]['tiles']} tile blocks of {geo.tb_m} are "
                               f"not the geometry's {geo.n} x {geo.per_image} tiles")
    threads = launch.block[0] * launch.block[1]  # one warp group
    indent = head[0]["indent"] + "  "
    code = [
        f"// {PREFETCH_MARK} the input rows (and residual rows) of the next tile block this",
        "// group computes, so that its ITrans finds them in L2.",
        f"const int pf_next = {TILE_BLOCK} + {steps[0]['step']};",
        f"const int pf_thread = (int)threadIdx.x + {launch.block[0]} * (int)threadIdx.y;",
        f"if (pf_next < {head[0]['tiles']}) {{",
    ]
    inner = _rows(geo, "x", "x_ptr", geo.c, _element_bytes(kernel, "x_ptr"), geo.m + 2, -1,
                  threads)
    if any(p.name == "residual_ptr" for p in kernel.params):
        inner += _rows(geo, "res", "residual_ptr", geo.k, _element_bytes(kernel, "residual_ptr"),
                       geo.m, 0, threads)
    code += ["  " + line for line in inner] + ["}"]
    text = "".join(f"{indent}{line}\n" for line in code)
    body = body[:head[0].end()] + text + body[head[0].end():]
    return Kernel(kernel.name, kernel.launch_bounds, kernel.params, body)
