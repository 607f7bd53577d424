"""A/B artifacts for the L2 prefetch of the next tile block (reconstructor.prefetch): every
bench_full case with a persistent full kernel, built at this commit (NAME@<commit>) next to the
same case of the benchmark run at 9f93dc2 (NAME@9f93dc2, copied from its artifacts).
usage: python build_ab.py OUT K/N BASELINE_DIR"""
import shutil
import sys
from pathlib import Path

from wino_tvm.artifact import build_artifact, commit_id
from wino_tvm.suites import artifact_name, bench_full

out, shard, base = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
k, n = map(int, shard.split("/"))
cases = [(wl, cfg) for wl, cfg in bench_full() if cfg.persist]
for i, (wl, cfg) in enumerate(cases):
    if i % n == k - 1:
        name = artifact_name(wl, cfg)
        build_artifact(wl, cfg, out / f"{name}@{commit_id()}", "sm_90", log=lambda _m: None)
        shutil.copytree(base / name, out / f"{name}@9f93dc2", dirs_exist_ok=True)
        print(f"[{i + 1}/{len(cases)}] {name}", flush=True)
