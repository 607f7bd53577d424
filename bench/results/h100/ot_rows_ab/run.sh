#!/bin/bash
# OTrans rows alpha apart (README.md), one device call:
# 1. same-run A/B of the 26 candidates built at 9427498 (old_*) and 862c1f8 (new_*), 3 checks each;
# 2. ncu of the old and new 960^2 fp16-accumulator ks2 kernels (shared wavefronts per opcode:
#    python3 ../min_blocks_ab/shared_wavefronts.py).
set -u
O=$1
W=$O/ot_rows_ab
mkdir -p $W
tar xzf .gpu/or_ab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/or_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -3 $W/ab.log
v=N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2-oc2
for side in old new; do
  n=ncu_960_fp16acc_ks2_$side
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section SourceCounters -k regex:winograd_full \
    --launch-count 1 -o $W/$n .gpu/or_ab/${side}_$v/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
  ncu --import $W/$n.ncu-rep --page source --csv --print-source sass > $W/${n}_sass.csv 2>> $W/ncu.log
  rm -f $W/$n.ncu-rep
done
gzip $W/*.csv
tar czf $O/ot_rows_ab.tar.gz -C $O ot_rows_ab && rm -rf $W
