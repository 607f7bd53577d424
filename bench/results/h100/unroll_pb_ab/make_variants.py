"""Textual unroll variants of the persistent base artifacts under /tmp/exp2 (README.md).

Each variant rewrites the `#pragma unroll 4` the reconstructor puts on the ITrans tile loop
(`it`) or the OTrans loop (`ot`) of program.cu; a variant that would equal its base (the loop
is already fully unrolled or has at most 4 trips) is not made.
"""

import re
import shutil
from pathlib import Path

root = Path("/tmp/exp2")
LOOP = r"#pragma unroll 4\n(\s*)for \(int {var}[^;]*; {var} < (\d+);"
LOOPS = {"it": "it_i2_1_i3_1_0_fused_0", "ot": "ot_i_0_j_0_fused_1_k_1_fused_0"}
VARIANTS = {"it8": {"it": 8}, "ot8": {"ot": 8}, "otfull": {"ot": 0},
            "it8otfull": {"it": 8, "ot": 0}}


def rewrite(src: str, loop: str, factor: int) -> tuple[str, bool]:
    """Unroll `loop` by `factor` (0: fully); whether that differs from unroll 4."""
    changed = False

    def sub(m: re.Match) -> str:
        nonlocal changed
        trips = int(m.group(2))
        want = trips if factor == 0 else min(factor, trips)
        changed |= want > 4
        pragma = "#pragma unroll" if want == trips else f"#pragma unroll {want}"
        return m.group(0).replace("#pragma unroll 4", pragma, 1)

    var = LOOPS[loop]
    src = re.sub(LOOP.format(var=var), sub, src)
    return src, changed


for base in sorted(root.glob("base_*")):
    for name, loops in VARIANTS.items():
        src = (base / "program.cu").read_text()
        differs = False
        for loop, factor in loops.items():
            src, changed = rewrite(src, loop, factor)
            differs |= changed
        if not differs:
            continue
        out = root / base.name.replace("base", name)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(base, out)
        (out / "wino_bench").unlink(missing_ok=True)
        (out / "program.cu").write_text(src)
        print(out.name)
