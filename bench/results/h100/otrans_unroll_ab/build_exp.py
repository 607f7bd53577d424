import sys
from pathlib import Path
from wino_tvm.suites import bench_full, artifact_name
from wino_tvm.artifact import build_artifact
shapes = {(1,960,960,64,64), (1,224,224,64,64), (32,56,56,64,64), (32,14,14,256,256)}
k, n = map(int, sys.argv[1].split("/"))
cases = [(wl, cfg) for wl, cfg in bench_full() if (wl.n, wl.h, wl.w, wl.c, wl.k) in shapes and cfg.tb_k != 32 or False]
cases = [c for c in cases if (c[0].n, c[0].h, c[0].w, c[0].c, c[0].k) in shapes]
for i, (wl, cfg) in enumerate(cases):
    if i % n != k - 1: continue
    name = artifact_name(wl, cfg)
    print(name, flush=True)
    build_artifact(wl, cfg, Path(".gpu/otx") / name, "sm_90", log=lambda _m: None)
