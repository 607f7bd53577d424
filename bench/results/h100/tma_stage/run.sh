#!/bin/bash
# TMA staging of the lane kernel's patches (README.md). Usage: run.sh OUT RUN. A smoke test of
# two b- artifacts under a 30 s timeout each (a wrong mbarrier protocol hangs), then the a-
# (d3b702a, copies_once/) and b- artifacts timed in one batch.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/tma_stage.tar.gz -C .gpu
P=.gpu/tma_stage
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
for c in 'b-N1_H960_W960_C64_K64-fp16-fp16-*wg-g4-ts2' 'b-N128_H14_W14_C256_K256-fp16-fp16-*lane-g8'; do
  d=$(ls -d $P/$c | head -1)
  timeout 200 python3 -m wino_tvm.runner $d --checks 1 --timeout 30 >> $W/smoke.log 2>&1
  rc=$?
  echo "smoke $(basename $d): exit $rc" | tee -a $W/smoke.log
  [ $rc = 0 ] || { tail -n 20 $W/smoke.log; exit 1; }
done
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
