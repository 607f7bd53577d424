"""Textual variants of the base artifacts under /tmp/exp (see README.md): python make_variants.py"""

import re
import shutil
from pathlib import Path

root = Path("/tmp/exp")
ITRANS = r"^(\s*)(for \(int it_i2_1_i3_1_0_fused_0)"
OTRANS = r"^(\s*)(for \(int ot_i_0_j_0_fused)"
CHANNELS = r"^(\s*)(for \(int c_0 = 0)"
VARIANTS = {
    "u8": [(ITRANS, r"\1#pragma unroll\n\1\2")],
    "u4": [(ITRANS, r"\1#pragma unroll 4\n\1\2")],
    "u2": [(ITRANS, r"\1#pragma unroll 2\n\1\2")],
    "lb3": [(r"__launch_bounds__\(128\) winograd_full",
             r"__launch_bounds__(128, 3) winograd_full")],
    "u8ot": [(ITRANS, r"\1#pragma unroll\n\1\2"), (OTRANS, r"\1#pragma unroll\n\1\2")],
    "c0": [(CHANNELS, r"\1#pragma unroll\n\1\2")],
    "c0u8": [(CHANNELS, r"\1#pragma unroll\n\1\2"), (ITRANS, r"\1#pragma unroll\n\1\2")],
}
for base in sorted(root.glob("base_*")):
    for name, subs in VARIANTS.items():
        if name.startswith("c0") and not base.name.endswith("x32"):
            continue  # only tb_k 32 has a channel loop
        out = root / base.name.replace("base", name)
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(base, out)
        src = (base / "program.cu").read_text()
        for pat, rep in subs:
            src, n = re.subn(pat, rep, src, flags=re.M)
            assert n, (name, pat)
        (out / "program.cu").write_text(src)
        print(out.name)
