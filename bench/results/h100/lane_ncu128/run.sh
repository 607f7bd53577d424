#!/bin/bash
# ncu of the fp16-accumulator lane picks at C = 128 and 256 (README.md). Usage: run.sh OUT.
# Each kernel timed by batch, then one launch under ncu --set full.
set -u
O=$1
W=$O/lane_ncu128
mkdir -p $W
tar xzf .gpu/lane_ncu128.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/lane_ncu128 --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 6 $W/batch.log
for d in .gpu/lane_ncu128/*/; do
  n=$W/ncu_$(basename $d | cut -d- -f1)
  timeout 120 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 \
    -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_raw.csv
done
