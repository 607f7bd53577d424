#!/bin/bash
# ncu of the 448² fp32 pick with and without exchange_own (README.md). Usage: run.sh OUT RUN.
# Raw metrics and the source page (SASS, stall samples) of each, packed into one archive.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/xown_ncu.tar.gz -C .gpu
P=.gpu/xown_ncu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 2 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
for d in $P/*/; do
  n=$W/ncu_$(basename $d | grep -q -- -xown && echo xown || echo patch)
  timeout 180 ncu --clock-control none --set full --import-source yes -k regex:wino_lane_forward \
    --launch-count 1 -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
  ncu --import $n.ncu-rep --page source --csv --print-source sass > ${n}_sass.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_raw.csv ${n}_sass.csv
done
tar czf $1/$2.tar.gz -C $1 $2 && rm -rf $W
