"""Lab: f23 defaults built from two trees (a: base, b: change, c: base again) into ROOT."""
import importlib, sys
from pathlib import Path

tree, side, root = sys.argv[1], sys.argv[2], Path(sys.argv[3])
sys.path.insert(0, tree)
from wino_tvm.artifact import build_artifact
from wino_tvm.device import KNOWN_DEVICES  # noqa
from wino_tvm.kernels.f23.defaults import default_config
from wino_tvm.kernels.f23.config import F23Config
from wino_tvm.workload import Conv2dWorkload
import wino_tvm
assert wino_tvm.__file__.startswith(tree), wino_tvm.__file__
dev = KNOWN_DEVICES["h200"]
CASES = [
    ((128, 28, 28, 128, 128), {}), ((128, 14, 14, 256, 256), {}),
    ((1, 112, 112, 128, 128), {}), ((1, 56, 56, 256, 256), {}), ((1, 28, 28, 512, 512), {}),
    ((8, 112, 112, 128, 128), {}), ((8, 56, 56, 256, 256), {}), ((8, 28, 28, 512, 512), {}),
    ((1, 128, 128, 512, 512), {}), ((1, 256, 256, 256, 256), {}), ((1, 512, 512, 128, 128), {}),
    ((32, 7, 7, 512, 512), {}), ((3, 17, 29, 144, 192), {}),
    ((4, 30, 30, 128, 256), {"epilogue": ("bias", "residual", "relu")}),
    ((2, 12, 20, 128, 128), {"dtype": "int8", "accum": "fp32"}),
]
for shape, extra in CASES:
    wl = Conv2dWorkload(*shape, **extra)
    cfg = default_config(wl, dev)
    name = f"{side}-{wl.key}" + ("-" + "_".join(wl.epilogue) if wl.epilogue else "") 
    build_artifact(wl, cfg, root / name, "sm_90", log=lambda m: None)
    print(name, cfg.name(wl))
# stream-K (no producer) at N=128 7^2
wl = Conv2dWorkload(128, 7, 7, 512, 512)
cfg = F23Config(stages=4, persist=True, stream_k=True)
build_artifact(wl, cfg, root / f"{side}-{wl.key}-sk", "sm_90", log=lambda m: None)
print(f"{side}-{wl.key}-sk", cfg.name(wl))
