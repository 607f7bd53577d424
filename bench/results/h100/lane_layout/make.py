"""Splice lane_kernel.cu into generated artifacts' harnesses (hand-written experiment).

python3 bench/results/h100/lane_layout/make.py OUT ARTIFACT...
Each ARTIFACT's program.cu keeps its harness (data, float64 reference, timing, JSON record);
its generated kernels and launch sequence are replaced by lane_kernel.cu. The result is
OUT/<artifact name>-lane/program.cu, measured by `python -m wino_tvm.batch OUT`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

KERNELS_BEGIN = "// ---- generated kernels (opaque)"
KERNELS_END = "// ---- end of generated kernels"
LAUNCH_BEGIN = "// ---- workspaces"
LAUNCH_END = "// ---- data"
# (output channels per warp, input through shared memory): one artifact each
VARIANTS = ((32, 1), (32, 0), (16, 1))


def splice(program: str, kernel: str, config: str) -> str:
    """The harness of `program` around `kernel` (its own workspaces and launches)."""
    head, rest = program.split(KERNELS_BEGIN, 1)
    _, rest = rest.split(KERNELS_END, 1)
    constants, rest = rest.split(LAUNCH_BEGIN, 1)
    _, tail = rest.split(LAUNCH_END, 1)
    constants = re.sub(r'kConfigJson = "\\".*?\\""', f'kConfigJson = "\\\\"{config}\\\\""',
                       constants)
    return head + constants.split("\n", 1)[1] + kernel + LAUNCH_END + tail


def main(argv: list[str]) -> int:
    out, sources = Path(argv[0]), [Path(a) for a in argv[1:]]
    kernel = (Path(__file__).parent / "lane_kernel.cu").read_text()
    for src in sources:
        program = (src / "program.cu").read_text()
        if "\"fp16-fp16-m2-" not in program:
            print(f"error: {src} is not an fp16-accumulator m=2 artifact", file=sys.stderr)
            return 2
        for warp_k, staged in VARIANTS:
            name = f"lane-fp16-fp16-m2-w16x{warp_k}" + ("-smem" if staged else "-ldg")
            dst = out / f"{src.name}-{name}"
            dst.mkdir(parents=True, exist_ok=True)
            source = f"#define LANE_WARP_K {warp_k}\n#define LANE_STAGED {staged}\n" + kernel
            (dst / "program.cu").write_text(splice(program, source, name))
            print(dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
