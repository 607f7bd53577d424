#!/bin/bash
# same-call A/B of f23 defaults: a = 4 input stages, b = 3 (persistent on strips); 3 rounds interleaved
set -e
export PYTHONPATH=$PWD
python - <<'PY'
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from wino_tvm.runner import compile_program, detect_arch
arch = detect_arch()
dirs = sorted(p for p in Path("lab_st").iterdir() if p.is_dir())
with ThreadPoolExecutor(8) as pool:
    list(pool.map(lambda d: compile_program(d, arch), dirs))
PY
for round in 1 2 3; do
  for d in lab_st/*/; do
    line=$(${d}wino_bench --checks 1 --iters 200 --warmup 20 | tail -1)
    echo "{\"artifact\": \"$(basename $d)\", \"round\": $round, \"record\": $line}" >> $OUT/st.jsonl
  done
done
python - <<'PY'
import json, os, statistics, collections
rows = [json.loads(l) for l in open(os.path.join(os.environ["OUT"], "st.jsonl"))]
t = collections.defaultdict(list)
for r in rows:
    assert r["record"]["correct"], r
    t[r["artifact"]].append(r["record"]["median_us"])
for name in sorted({k[2:] for k in t}):
    a, b = statistics.median(t["a-" + name]), statistics.median(t["b-" + name])
    print(f"{name}: st4 {a:.1f} us, st3 {b:.1f} us, st4/st3 {a / b:.3f}")
PY
