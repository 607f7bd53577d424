"""Build the fusion-none A/B of fp16 ITrans arithmetic (run once at each commit)."""

import sys
from pathlib import Path

from wino_tvm.artifact import build_artifact
from wino_tvm.config import KernelConfig
from wino_tvm.workload import Conv2dWorkload

out = Path(sys.argv[1])
for s in (224, 960):
    wl = Conv2dWorkload(1, s, s, 64, 64, dtype="fp16", m=2)
    d = out / f"none_{s}"
    build_artifact(wl, KernelConfig(fusion="none"), d, log=lambda _m: None)
    (d / "prototype.cu").unlink()
