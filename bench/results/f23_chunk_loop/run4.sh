#!/bin/bash
# same-call A/B of f23 defaults: a = HEAD, g = U's ring of 5 stages with bulk copies 3 chunks ahead
# (HEAD: 4 stages, 2 ahead); 3 rounds interleaved
set -e
export PYTHONPATH=$PWD
T0=$(date +%s)
python - <<'PY'
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from wino_tvm.runner import compile_program, detect_arch
arch = detect_arch()
dirs = sorted(p for p in Path("lab_ws").iterdir() if p.is_dir())
with ThreadPoolExecutor(16) as pool:
    list(pool.map(lambda d: compile_program(d, arch), dirs))
PY
echo "compiled in $(( $(date +%s) - T0 )) s"
for round in 1 2 3; do
  for d in lab_ws/*/; do
    n=$(basename $d); iters=200; case $n in *1024x1024*|*512x512x256*) iters=100;; esac
    line=$(timeout 60 ${d}wino_bench --checks 1 --iters $iters --warmup 20 | tail -1)
    echo "{\"artifact\": \"$n\", \"round\": $round, \"record\": $line}" >> $OUT/ab.jsonl
  done
  echo "round $round at $(( $(date +%s) - T0 )) s"
done
python - <<'PY'
import json, os, statistics, collections
rows = [json.loads(l) for l in open(os.path.join(os.environ["OUT"], "ab.jsonl"))]
t = collections.defaultdict(list); bad = []; cfg = {}
for r in rows:
    if not r["record"]["correct"]: bad.append(r["artifact"])
    t[r["artifact"]].append(r["record"]["median_us"]); cfg[r["artifact"]] = r["record"]["config"]
print("incorrect:", bad)
for name in sorted({k[2:] for k in t}):
    a, g = statistics.median(t["a-" + name]), statistics.median(t["g-" + name])
    same = "" if cfg["a-" + name] == cfg["g-" + name] else "  (config differs: " + cfg["g-" + name][54:] + ")"
    print(f"{name:26s} a {a:7.1f}  g {g:7.1f}  a/g {a / g:.3f}{same}")
PY
