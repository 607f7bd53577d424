import sys
from pathlib import Path
from wino_tvm.workload import Conv2dWorkload
from wino_tvm.config import KernelConfig
from wino_tvm.artifact import build_artifact
out = Path(sys.argv[1])
cases = [(224, KernelConfig(32, 32, 64, fusion="full", u_smem=False)), (224, KernelConfig(32, 32, 32, fusion="full")),
         (960, KernelConfig(32, 32, 64, fusion="full", u_smem=False)), (960, KernelConfig(32, 32, 32, fusion="full")),
         (448, KernelConfig(32, 32, 64, fusion="full", u_smem=False))]
for s, cfg in cases:
    wl = Conv2dWorkload(1, s, s, 64, 64, dtype="fp16", m=2)
    d = out / f"{s}_{cfg.name(wl)}"
    build_artifact(wl, cfg, d, log=lambda _m: None)
    (d / "prototype.cu").unlink()
