"""Build the exploration's artifacts: the tuned bench_full cases (TB_K != 32) of four shapes.

python build_exp.py K/N (shard K of N) from the repo root; writes .gpu/otx/<artifact>.
"""

import sys
from pathlib import Path

from wino_tvm.artifact import build_artifact
from wino_tvm.suites import artifact_name, bench_full

SHAPES = {(1, 960, 960, 64, 64), (1, 224, 224, 64, 64), (32, 56, 56, 64, 64),
          (32, 14, 14, 256, 256)}
k, n = map(int, sys.argv[1].split("/"))
cases = [(wl, cfg) for wl, cfg in bench_full()
         if (wl.n, wl.h, wl.w, wl.c, wl.k) in SHAPES and cfg.tb_k != 32]
for i, (wl, cfg) in enumerate(cases):
    if i % n == k - 1:
        name = artifact_name(wl, cfg)
        print(name, flush=True)
        build_artifact(wl, cfg, Path(".gpu/otx") / name, "sm_90", log=lambda _m: None)
