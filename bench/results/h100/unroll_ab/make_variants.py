import re, shutil, sys
from pathlib import Path
root = Path("/tmp/exp")
VARIANTS = {
    "u8": [(r"^(\s*)(for \(int it_i2_1_i3_1_0_fused_0)", r"\1#pragma unroll\n\1\2")],
    "u4": [(r"^(\s*)(for \(int it_i2_1_i3_1_0_fused_0)", r"\1#pragma unroll 4\n\1\2")],
    "u2": [(r"^(\s*)(for \(int it_i2_1_i3_1_0_fused_0)", r"\1#pragma unroll 2\n\1\2")],
    "lb3": [(r"__launch_bounds__\(128\) winograd_full", r"__launch_bounds__(128, 3) winograd_full")],
    "u8ot": [(r"^(\s*)(for \(int it_i2_1_i3_1_0_fused_0)", r"\1#pragma unroll\n\1\2"),
             (r"^(\s*)(for \(int ot_i_0_j_0_fused)", r"\1#pragma unroll\n\1\2")],
    "c0": [(r"^(\s*)(for \(int c_0 = 0)", r"\1#pragma unroll\n\1\2")],
    "c0u8": [(r"^(\s*)(for \(int c_0 = 0)", r"\1#pragma unroll\n\1\2"),
             (r"^(\s*)(for \(int it_i2_1_i3_1_0_fused_0)", r"\1#pragma unroll\n\1\2")],
}
for base in sorted(root.glob("base_*")):
    for name, subs in VARIANTS.items():
        if name.startswith("c0") and "x32_" not in base.name + "_" and not base.name.endswith("x32"):
            continue
        out = root / base.name.replace("base", name)
        if out.exists(): shutil.rmtree(out)
        shutil.copytree(base, out)
        src = (base / "program.cu").read_text()
        for pat, rep in subs:
            src, n = re.subn(pat, rep, src, flags=re.M)
            assert n, (name, pat)
        (out / "program.cu").write_text(src)
        print(out.name)
