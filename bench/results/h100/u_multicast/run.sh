#!/bin/bash
# U's slice multicast in clusters of 2 (README.md). Usage: run.sh OUT RUN SET (SET: umc, a-
# and m-; umc2: a-, m-, n-, k-). A smoke test of two m- artifacts under a timeout (a wrong protocol hangs), then
# every artifact of .gpu/SET.tar.gz timed in one batch.
set -u
W=$1/$2
S=$3
mkdir -p $W
tar xzf .gpu/$S.tar.gz -C .gpu
P=.gpu/$S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
for c in 'm-N1_H960_W960_C64_K64-fp16-fp16-*' 'm-N3_H7_W9_C64_K64-fp16-fp32-*'; do
  d=$(ls -d $P/*/$c | head -1)
  timeout 200 python3 -m wino_tvm.runner $d --checks 1 --timeout 30 >> $W/smoke.log 2>&1
  rc=$?
  echo "smoke $(basename $d): exit $rc" | tee -a $W/smoke.log
  [ $rc = 0 ] || { tail -n 20 $W/smoke.log; exit 1; }
done
mkdir -p .gpu/${S}_all && mv $P/*/* .gpu/${S}_all/
python3 -m wino_tvm.batch .gpu/${S}_all --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
# The grid the harness chose for a cluster launch (by cudaOccupancyMaxActiveClusters).
d=$(ls -d .gpu/${S}_all/m-N1_H448_W448_C64_K64-fp16-fp16-* | head -1)
timeout 120 ncu --metrics launch__grid_size,launch__cluster_dim_x,gpu__time_duration.sum \
  -k regex:wino_lane_forward --launch-count 1 $d/wino_bench --checks 1 --no-time \
  > $W/ncu_grid.log 2>&1
grep -E "launch__|gpu__time" $W/ncu_grid.log
