#!/bin/bash
# Whole tiles in int8 full kernels (README.md), one device call:
# 1. same-run A/B: 34 bench_full int8 variants built at 3d37e7f (old_*) against the same configs
#    built at 8f30c45 (new_*), 3 checks each;
# 2. re-tuning: plan.py tune (39 candidates built at 8f30c45), measured by the tuner;
# 3. ncu of the new 960^2 int8 kernel (where its time goes now).
set -u
O=$1
W=$O/whole_tiles_int8
mkdir -p $W
tar xzf .gpu/wti_ab.tar.gz -C .gpu
tar xzf .gpu/tune_wti.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/wti_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -3 $W/ab.log
python3 -m wino_tvm.tune measure .gpu/tune_wti --log $W/tune_wti.jsonl > $W/tune_wti.log 2>&1
tail -3 $W/tune_wti.log
v=N1_H960_W960_C64_K64-int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2
for side in old new; do
  n=ncu_960_int8_$side
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section SourceCounters -k regex:winograd_full \
    --launch-count 1 -o $W/$n .gpu/wti_ab/${side}_$v/wino_bench --checks 1 --no-time \
    >> $W/ncu.log 2>&1
  ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
  ncu --import $W/$n.ncu-rep --page source --csv --print-source sass > $W/${n}_sass.csv \
    2>> $W/ncu.log
  rm -f $W/$n.ncu-rep
done
gzip $W/*.csv
tar czf $O/whole_tiles_int8.tar.gz -C $O whole_tiles_int8 && rm -rf $W
