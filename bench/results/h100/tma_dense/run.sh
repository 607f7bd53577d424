#!/bin/bash
# TMA boxes without the pad at C >= 128 (README.md).
# Usage: run.sh OUT RUN. A smoke test of two b- artifacts under a timeout (a wrong protocol
# hangs), then plan.py's a- (9262d6d, cp.async), b- (unpadded TMA boxes) and c- (9262d6d, padded TMA boxes) timed in one batch.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/tma_dense.tar.gz -C .gpu
P=.gpu/tma_dense
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
for c in 'b-N128_H14_W14_C256_K256-fp16-fp16-*' 'b-N128_H28_W28_C128_K128-fp16-fp32-*'; do
  d=$(ls -d $P/$c | head -1)
  timeout 200 python3 -m wino_tvm.runner $d --checks 1 --timeout 30 >> $W/smoke.log 2>&1
  rc=$?
  echo "smoke $(basename $d): exit $rc" | tee -a $W/smoke.log
  [ $rc = 0 ] || { tail -n 20 $W/smoke.log; exit 1; }
done
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
