#!/bin/bash
# U in fragment order (README.md), one device call:
# 1. same-run A/B of plan.py's 28 candidates built at de93984 (ab/old_*) and 8568521 (ab/new_*);
# 2. ncu of the old and new 960^2 int8 16/64/64 ul2 kernels;
# 3. the tuner measures the new side (tune/) for tuning_logs/h100.jsonl.
set -u
O=$1
W=$O/u_order_ab
mkdir -p $W
tar xzf .gpu/uo.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/uo/ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -3 $W/ab.log
v=N1_H960_W960_C64_K64-int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2
for side in old new; do
  n=ncu_960_int8_$side
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section SourceCounters -k regex:winograd_full \
    --launch-count 1 -o $W/$n .gpu/uo/ab/${side}_$v/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
  ncu --import $W/$n.ncu-rep --page source --csv --print-source sass > $W/${n}_sass.csv 2>> $W/ncu.log
  rm -f $W/$n.ncu-rep
done
gzip $W/*.csv
python3 -m wino_tvm.tune measure .gpu/uo/tune --log $W/tune_uo.jsonl > $W/tune_uo.log 2>&1
tail -3 $W/tune_uo.log
tar czf $O/u_order_ab.tar.gz -C $O u_order_ab && rm -rf $W
