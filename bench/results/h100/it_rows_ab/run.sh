#!/bin/bash
# int8 ITrans rows step apart with packed word stores (README.md), one device call:
# 1. same-run A/B: every int8 bench_full variant, built at 8363668 (old_*) and a8e7ed8 (new_*);
# 2. ncu of the new 960^2 int8 kernel (the old one: ../m_rows_ab/ncu_960_int8_new_*).
set -u
O=$1
W=$O/it_rows_ab
mkdir -p $W
tar xzf .gpu/ir_ab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/ir_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -3 $W/ab.log
n=ncu_960_int8_new
v=N1_H960_W960_C64_K64-int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2
timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
  --section LaunchStats --section SchedulerStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section SourceCounters -k regex:winograd_full \
  --launch-count 1 -o $W/$n .gpu/ir_ab/new_$v/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
ncu --import $W/$n.ncu-rep --page source --csv --print-source sass > $W/${n}_sass.csv 2>> $W/ncu.log
rm -f $W/$n.ncu-rep
gzip $W/*.csv
tar czf $O/it_rows_ab.tar.gz -C $O it_rows_ab && rm -rf $W
