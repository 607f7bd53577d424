"""Textual variants of the base artifacts under /tmp/exp3 (README.md); run from the repo root.

fold: reconstructor.specialise.simplify on the full kernel's OTrans part (from the `// Full
      fusion:` comment to the kernel's end): `v = 0; v = (v + e);` becomes `v = e;`.
fill: the accumulators' fill_fragment loops move from the top of the tile block to just
      before the MMA loop, after ITrans (persistent kernels: one channel chunk).
"""

import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, ".")
from reconstructor.specialise import simplify  # noqa: E402

root = Path("/tmp/exp3")
FILL = re.compile(r"^(    )for \(int h_init = 0;.*?^\1}\n", re.M | re.S)
MMA = re.compile(r"^    for \(int h = 0; h < \d+; \+\+h\) \{\n", re.M)


def fold(src: str) -> str:
    start = src.index("// Full fusion:")
    end = src.index("\n}\n", start)
    return src[:start] + simplify(src[start:end]) + src[end:]


def fill(src: str) -> str:
    if "for (int c_0 = 0" in src:
        raise ValueError("channel loop: the fill must stay before it")
    block = FILL.search(src)
    src = src[:block.start()] + src[block.end():]
    mma = MMA.search(src)
    return src[:mma.start()] + block.group() + src[mma.start():]


VARIANTS = {"fold": [fold], "fill": [fill], "foldfill": [fold, fill]}
for base in sorted(root.glob("base_*")):
    for name, edits in VARIANTS.items():
        src = (base / "program.cu").read_text()
        try:
            for edit in edits:
                new = edit(src)
                assert new != src, (name, base.name)
                src = new
        except ValueError as e:
            print(f"skip {name} {base.name}: {e}")
            continue
        out = root / base.name.replace("base", name)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(base, out)
        (out / "wino_bench").unlink(missing_ok=True)
        (out / "program.cu").write_text(src)
        print(out.name)
