"""Per-warp SASS instruction counts of winograd_full_kernel (CPU only; the numbers in
docs/perf-notes.md). Needs TVM, nvcc and cuobjdump on PATH (pip: nvidia-cuda-cuobjdump).

python docs/sass/count_sass.py > docs/sass/counts.txt

"Per warp" is one warp's dynamic path: the kernel with every loop unrolled and, when
specialised, only that warp's switch case kept, so its static SASS is what the warp executes.
Local-memory spill instructions (forced by the unrolling) are not counted.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from unittest import mock

from reconstructor.pipeline import reconstruct
from wino_tvm import compute
from wino_tvm.codegen import generate
from wino_tvm.config import KernelConfig
from wino_tvm.schedule import scheduled_module
from wino_tvm.workload import Conv2dWorkload

KERNEL = "winograd_full_kernel"
SHAPE = (1, 224, 224, 64, 64)
TILES = KernelConfig(32, 32, 32, fusion="full")
_CASE = re.compile(r"^( *)case (\d+): \{$")
_OP = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)", re.M)


def one_case(source: str, warp: int) -> str:
    """source with every switch case but `warp`'s removed."""
    out, keep, indent = [], True, None
    for line in source.splitlines(keepends=True):
        case = _CASE.match(line)
        if case:
            indent, keep = case[1], int(case[2]) == warp
        if keep:
            out.append(line)
        if indent is not None and line == f"{indent}}} break;\n":
            keep = True
    return "".join(out)


def unrolled(source: str) -> str:
    return re.sub(r"^( *)for \(", r"\1#pragma unroll\n\1for (", source, flags=re.M)


def sass(source: str) -> str:
    """cuobjdump's SASS listing of the kernel in source (nvcc -O3, sm_90)."""
    with tempfile.TemporaryDirectory() as tmp:
        cu, cubin = Path(tmp) / "k.cu", Path(tmp) / "k.cubin"
        cu.write_text(source)
        subprocess.run(["nvcc", "-std=c++17", "-O3", "-arch=sm_90", "-cubin",
                        "-diag-suppress=177,1046", "-o", str(cubin), str(cu)], check=True)
        return subprocess.run(["cuobjdump", "-sass", "-fun", KERNEL, str(cubin)], check=True,
                              capture_output=True, text=True).stdout


def count(source: str) -> tuple[int, Counter]:
    """(instructions without spill loads/stores, opcode counts) of the kernel in source."""
    ops = Counter(op for op in _OP.findall(sass(source)) if op != "NOP")
    return sum(ops.values()) - ops["LDL"] - ops["STL"], ops


def per_warp(source: str, alpha: int, specialised: bool) -> list[int]:
    if not specialised:
        return [count(unrolled(source))[0]]
    return [count(unrolled(one_case(source, w)))[0] for w in range(alpha)]


def report(label: str, dtype: str, m: int) -> None:
    wl = Conv2dWorkload(*SHAPE, dtype=dtype, m=m)
    proto = generate(scheduled_module(wl, TILES))
    launches = [asdict(k) for k in proto.launches]
    for specialise in (False, True):
        source = reconstruct(proto.source, launches, "full", specialise).source
        counts = per_warp(source, wl.alpha, specialise)
        size_kb = count(source)[0] * 16 / 1024  # 16 bytes per sm_90 instruction
        print(f"{label:28s} specialise={specialise!s:5s} per-warp instructions {counts}, "
              f"kernel {size_kb:.0f} KB of SASS", flush=True)


if __name__ == "__main__":
    print(f"{KERNEL}, tb {TILES.tb_m}/{TILES.tb_n}/{TILES.tb_k}, shape {SHAPE}, sm_90")
    with mock.patch.object(compute, "itrans_work_dtype", lambda wl, half_itrans=True: "float32"):
        report("fp16 m=2, float32 ITrans", "fp16", 2)
    for dtype, m in (("fp16", 2), ("fp16", 4), ("int8", 2), ("int8", 4)):
        report(f"{dtype} m={m}", dtype, m)
