import sys
from pathlib import Path

from wino_tvm.artifact import build_artifact, commit_id
from wino_tvm.suites import artifact_name, bench_full

SHAPES = {(1, 224, 224, 64, 64), (1, 448, 448, 64, 64), (1, 960, 960, 64, 64),
          (32, 56, 56, 64, 64), (32, 14, 14, 256, 256), (128, 28, 28, 128, 128)}
k, n = map(int, sys.argv[2].split("/"))
cases = [(wl, cfg) for wl, cfg in bench_full()
         if (wl.n, wl.h, wl.w, wl.c, wl.k) in SHAPES and wl.dtype == "fp16" and wl.m == 2]
for i, (wl, cfg) in enumerate(cases):
    if i % n == k - 1:
        build_artifact(wl, cfg, Path(sys.argv[1]) / f"{artifact_name(wl, cfg)}@{commit_id()}",
                       "sm_90", log=lambda _m: None)
