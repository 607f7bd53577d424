#!/bin/bash
# ncu of the N=1 224², 448² and 960² fp16 picks, with u_async's U staging (README.md).
# Usage: run.sh OUT RUN. Raw metrics and the per-instruction source page (SASS, stall samples).
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/start_cost.tar.gz -C .gpu
P=.gpu/start_cost
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 2 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
for d in $P/*/; do
  n=$W/ncu_$(basename $d | cut -d_ -f2)
  timeout 180 ncu --clock-control none --set full --import-source yes -k regex:wino_lane_forward \
    --launch-count 1 -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
  ncu --import $n.ncu-rep --page source --csv --print-source sass > ${n}_sass.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_raw.csv ${n}_sass.csv
done
ls -la $W
