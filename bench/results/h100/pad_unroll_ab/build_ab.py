"""Build the pad + unroll A/B artifacts (run once at each commit): python build_ab.py OUT_DIR."""

import sys
from pathlib import Path

from wino_tvm.artifact import build_artifact
from wino_tvm.config import KernelConfig
from wino_tvm.workload import Conv2dWorkload

out = Path(sys.argv[1])


def full(tb_m: int, tb_n: int, tb_k: int, u_smem: bool = True) -> KernelConfig:
    return KernelConfig(tb_m, tb_n, tb_k, fusion="full", u_smem=u_smem)


N1 = (1, 224, 224, 64, 64)
N1_960 = (1, 960, 960, 64, 64)
cases = [  # (shape, dtype, accum, m, epilogue, config)
    (N1, "fp16", "fp32", 2, (), full(32, 32, 64, False)),
    (N1, "fp16", "fp32", 2, (), full(32, 32, 32)),
    (N1_960, "fp16", "fp32", 2, (), full(32, 32, 64, False)),
    (N1_960, "fp16", "fp32", 2, (), full(32, 32, 32)),
    (N1_960, "fp16", "fp32", 2, (), full(16, 32, 64)),
    (N1_960, "fp16", "fp32", 2, ("bias", "residual", "relu"), full(32, 32, 64, False)),
    (N1_960, "fp16", "fp32", 4, (), full(16, 64, 32)),
    (N1_960, "fp16", "fp16", 2, (), full(32, 64, 64, False)),
    ((32, 56, 56, 64, 64), "fp16", "fp32", 2, (), full(16, 32, 64)),
    ((32, 7, 7, 512, 512), "fp16", "fp32", 2, (), full(16, 32, 64)),
    (N1, "int8", "int32", 2, (), full(16, 64, 32, False)),
    (N1_960, "int8", "int32", 2, (), full(16, 64, 64, False)),
    ((128, 56, 56, 64, 64), "int8", "int32", 2, (), full(32, 32, 64, False)),
    ((32, 14, 14, 256, 256), "int8", "int32", 4, (), full(16, 32, 64, False)),
]
for shape, dtype, accum, m, epilogue, cfg in cases:
    wl = Conv2dWorkload(*shape, dtype=dtype, m=m, accum=accum, epilogue=epilogue)
    d = out / f"{wl.key}_{cfg.name(wl)}{'_' + '-'.join(epilogue) if epilogue else ''}"
    build_artifact(wl, cfg, d, log=lambda _m: None)
    (d / "prototype.cu").unlink()
    print(d.name, flush=True)
