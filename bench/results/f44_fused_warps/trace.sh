#!/bin/bash
F="-std=c++17 -O3 -diag-suppress=177 -gencode=arch=compute_90a,code=sm_90a"
ls -d .lab/trace/* | xargs -P 16 -I{} sh -c "nvcc $F -o {}/bin {}/program.cu || echo BUILD FAIL {}"
for d in .lab/trace/*; do
  echo "== $(basename $d)"
  timeout 60 $d/bin --checks 1 --warmup 10 --iters 30 2>&1 >/dev/null | grep -E "forward:|TRACE|FAIL"
done
