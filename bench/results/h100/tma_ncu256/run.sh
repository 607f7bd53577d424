#!/bin/bash
# ncu of the C = 256 pick with cp.async and with TMA copies (README.md). Usage: run.sh OUT RUN.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/tma_ncu256.tar.gz -C .gpu
P=.gpu/tma_ncu256
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 2 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
for d in $P/*/; do
  n=$W/ncu_$(basename $d | grep -q -- -tma && echo tma || echo cpasync)
  timeout 180 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 \
    -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_raw.csv
done
