#!/bin/bash
# Scratch (not product): f44 correctness at odd shapes through the harness, then bench.compute.
export PYTHONPATH=$PWD WINO_TVM_CACHE=$PWD/artifacts/wcache WINO_TVM_COMMIT=${COMMIT:-dev}
nvidia-smi --query-gpu=name --format=csv,noheader
i=0
for spec in "1,128,128,512,512:" "3,37,45,128,256:bias,residual,relu" "2,30,17,192,128:bias" "1,7,9,64,128:residual,relu"; do
  shape=${spec%%:*}; epi=${spec#*:}; i=$((i+1))
  timeout 300 python -m wino_tvm.build --shape $shape --family f44 --m 4 ${epi:+--epilogue $epi} --out /tmp/f44_$i --checks 3 2>&1 | tail -2 | cut -c1-600
done
timeout 420 python -m wino_tvm.bench.compute --out $OUT/compute --log $OUT/f44.jsonl --family f44 --bound 3e-3 \
  --workloads 1,128,128,512,512 1,256,256,512,512 8,28,28,512,512 1,256,256,256,256 2>&1 | grep -v "^\[" | tail -20
