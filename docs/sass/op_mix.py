"""Opcode mix of one warp's path through the 960^2 full kernel profiled in docs/perf-notes.md
(fp16 m=2, 32/32/64 tiles, U from L2), as count_sass.py counts it; CPU only, same tools.

python docs/sass/op_mix.py > docs/sass/op_mix.txt
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict

from count_sass import count, one_case, sass, unrolled

from reconstructor.pipeline import reconstruct
from wino_tvm.codegen import generate
from wino_tvm.config import KernelConfig
from wino_tvm.schedule import scheduled_module
from wino_tvm.workload import Conv2dWorkload

WARP = 1
# Loads and stores with their width and cache modifiers, e.g. LDG.E.128.CONSTANT.
_MEMORY = re.compile(r"\b((?:LD|ST)(?:G|S|SM)\b[\w.]*)")

if __name__ == "__main__":
    wl = Conv2dWorkload(1, 960, 960, 64, 64, dtype="fp16", m=2)
    cfg = KernelConfig(32, 32, 64, fusion="full", u_smem=False)
    proto = generate(scheduled_module(wl, cfg))
    source = reconstruct(proto.source, [asdict(k) for k in proto.launches], "full").source
    warp = unrolled(one_case(source, WARP))
    total, ops = count(warp)
    print(f"{cfg.name(wl)}, N1_H960_W960_C64_K64, warp {WARP}: {total} instructions")
    for op, n in ops.most_common():
        print(f"{op:8s} {n}")
    print("loads and stores:")
    for op, n in sorted(Counter(_MEMORY.findall(sass(warp))).items()):
        print(f"{op:24s} {n}")
