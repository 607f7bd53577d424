#!/bin/bash
# Where U sits decides the N=128 14² fp16 kernels' time (README.md): the standalone benchmark
# of two 31c5d58 artifacts, patched so that U lies at 64 MiB + k * 0.5 MiB of one 96 MiB
# allocation (k = 0..15, one process each; U is 2 MiB, so k % 4 == 0 keeps it in one 2 MiB
# page), median of 100 timed calls per k.
set -u
O=$1
W=$O/workspace_placement
mkdir -p $W
tar xzf .gpu/placement.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
export PYTHONPATH=.
for d in .gpu/placement/*/; do
  name=$(basename $d)
  sed -i 's/WB_CHECK(cudaMalloc(&U, .*/{ char* wb_u; WB_CHECK(cudaMalloc(\&wb_u, 96ull << 20)); U = (decltype(U))(wb_u + (64ull << 20) + atol(getenv("UOFF"))); }/;s/WB_CHECK(cudaFree(U));//' $d/program.cu
  python3 -c "from pathlib import Path; from wino_tvm.runner import compile_program as c; c(Path('$d'), 'sm_90')"
  for k in $(seq 0 15); do
    echo "$name k=$k $(UOFF=$((k * 524288)) $d/wino_bench --iters 100 --checks 1 2>/dev/null | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["median_us"], r["correct"])')"
  done | tee -a $W/sweep.txt
done
