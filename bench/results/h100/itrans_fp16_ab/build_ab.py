"""Build the fp16 ITrans A/B artifacts (run once at each commit): python build_ab.py OUT_DIR."""

import sys
from pathlib import Path

from wino_tvm.artifact import build_artifact
from wino_tvm.config import KernelConfig
from wino_tvm.workload import Conv2dWorkload

out = Path(sys.argv[1])
tuned = KernelConfig(32, 32, 64, fusion="full", u_smem=False)
fixed = KernelConfig(32, 32, 32, fusion="full")
cases = [(224, tuned), (224, fixed), (960, tuned), (960, fixed), (448, tuned)]
for s, cfg in cases:
    wl = Conv2dWorkload(1, s, s, 64, 64, dtype="fp16", m=2)
    d = out / f"{s}_{cfg.name(wl)}"
    build_artifact(wl, cfg, d, log=lambda _m: None)
    (d / "prototype.cu").unlink()
