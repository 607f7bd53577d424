#!/bin/bash
# Wide M rows (README.md), one device call:
# 1. same-run A/B: the bench_full variants whose M rows widened, built at 8a7b0d5 (old_*) and
#    at the commit in ab.jsonl (new_*), 3 checks each;
# 2. ncu of the new 960^2 int8 kernel (the old one: ../round_pipeline_ab/).
set -u
O=$1
W=$O/m_rows_ab
mkdir -p $W
tar xzf .gpu/mr_ab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/mr_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -3 $W/ab.log
n=ncu_960_int8_new
v=N1_H960_W960_C64_K64-int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2
timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
  --section LaunchStats --section SchedulerStats --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section SourceCounters -k regex:winograd_full \
  --launch-count 1 -o $W/$n .gpu/mr_ab/new_$v/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
ncu --import $W/$n.ncu-rep --page source --csv --print-source sass > $W/${n}_sass.csv 2>> $W/ncu.log
rm -f $W/$n.ncu-rep
gzip $W/*.csv
tar czf $O/m_rows_ab.tar.gz -C $O m_rows_ab && rm -rf $W
