#!/bin/bash
# Lab run: fused correctness on odd shapes (each under a timeout), then the same-run A/B.
set -u
nvidia-smi -L
F="-std=c++17 -O3 -diag-suppress=177 -gencode=arch=compute_90a,code=sm_90a"
ls -d .lab/check/* | xargs -P 16 -I{} sh -c "nvcc $F -o {}/bin {}/program.cu || echo BUILD FAIL {}"
ok=1
for d in .lab/check/*; do
  r=$(timeout 30 $d/bin --checks 2 --warmup 2 --iters 5 2>$d/err.txt); rc=$?
  echo "$(basename $d) rc=$rc $(echo "$r" | python3 -c 'import sys,json; r=json.loads(sys.stdin.read() or "{}"); print({k: r.get(k) for k in ("correct","rel_l2_err","nonfinite","median_us")})' 2>&1)"
  [ $rc -eq 0 ] && echo "$r" | grep -q '"correct": true' || { ok=0; tail -3 $d/err.txt; }
done
[ $ok -eq 1 ] || { echo "CHECKS FAILED: no A/B"; exit 1; }
PYTHONUNBUFFERED=1 timeout 400 python3 -m wino_tvm.bench.ab .lab/ab --out $OUT/ab --rounds 3 --iters 100 --warmup 20 --jobs 16 2>&1 | grep -v "^\[round"
