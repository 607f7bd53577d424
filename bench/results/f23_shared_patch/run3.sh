#!/bin/bash
# device: issue 52's VGG/ResNet shapes swept with the shared patch, then 14^2 twice more
cd "$(dirname "$0")/.."
export WINO_TVM_COMMIT=$(cat .lab/commit)
cp tuning_logs/h200.jsonl $OUT/h200.jsonl
AX="--axis f23.x_chunks=2 --axis f23.row_pairs=1 --axis f23.producer=1"
( time timeout 330 python3 -m wino_tvm.bench.compute --out $OUT --log $OUT/h200.jsonl --stem compute_shared_patch --axis f23.strip=0,7,8 --axis f23.compact_rows=0,1 $AX --workloads 1,112,112,128,128 1,56,56,256,256 1,28,28,512,512 8,112,112,128,128 8,56,56,256,256 8,28,28,512,512 128,28,28,128,128 128,14,14,256,256 ) > $OUT/compute_shared_patch.log 2>&1; echo rc $?; cat $OUT/compute_shared_patch.md | cut -c1-400
for i in 1 2; do
timeout 90 python3 -m wino_tvm.bench.compute --out $OUT/r$i --log $OUT/scratch.jsonl --stem rep --axis f23.strip=0 --axis f23.compact_rows=1 --axis f23.c_split=1 $AX --workloads 128,14,14,256,256 > $OUT/r$i.log 2>&1; echo rc $?; tail -1 $OUT/r$i/rep.md
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
