#!/bin/bash
# The lane-layout experiment: lane kernels and the tuned fp16-accumulator picks (built at
# b5c49b2) in one harness (batch), then cuDNN and the same picks (bench), then ncu of the
# 960² lane kernel and pick. Everything under $O/run is packed into one archive at the end.
set -u
O=$1
W=$O/run
mkdir -p $W
tar xzf .gpu/lane.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/lane --record $W/ab.jsonl --checks 3 > $W/batch.log 2>&1
tail -12 $W/batch.log
python3 -m wino_tvm.bench .gpu/lane/picks --out $W/bench --iters 60 --commit b5c49b2 > $W/bench.log 2>&1
tail -3 $W/bench.log
for d in .gpu/lane/lane/N1_H960*-w16x32-smem .gpu/lane/picks/N1_H960_fp16acc_pick; do
  n=$W/ncu_$(basename $d)
  timeout 150 ncu --clock-control none --set full -k regex:winograd --launch-count 1 -o $n \
    $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page details --csv > ${n}_details.csv 2>> $W/ncu.log
  ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_details.csv ${n}_raw.csv
done
tar czf $O/run.tar.gz -C $O run && rm -rf $W
