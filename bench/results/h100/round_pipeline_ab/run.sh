#!/bin/bash
# Magic-number rounding and input pipeline (README.md), one device call:
# 1. same-run A/B: the 80 bench_full variants either pass touches, built at 738302a (old_*) and
#    at 155c4c0 (new_*), 3 checks each;
# 2. ncu of the new 960^2 fp16-accumulator ks2 kernel (the old one is ../bench_full_738302a/'s
#    ncu_960_fp16acc_32x32ks2_*) and of the new 960^2 int8 kernel (old: ../whole_tiles_int8/).
set -u
O=$1
W=$O/round_pipeline_ab
mkdir -p $W
tar xzf .gpu/rp_ab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/rp_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -3 $W/ab.log
for pair in fp16acc_ks2:N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2-oc2 \
            int8:N1_H960_W960_C64_K64-int8-int32-m2-tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-ul2; do
  n=ncu_960_${pair%%:*}_new
  v=${pair#*:}
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section SourceCounters -k regex:winograd_full \
    --launch-count 1 -o $W/$n .gpu/rp_ab/new_$v/wino_bench --checks 1 --no-time \
    >> $W/ncu.log 2>&1
  ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
  ncu --import $W/$n.ncu-rep --page source --csv --print-source sass > $W/${n}_sass.csv \
    2>> $W/ncu.log
  rm -f $W/$n.ncu-rep
done
gzip $W/*.csv
tar czf $O/round_pipeline_ab.tar.gz -C $O round_pipeline_ab && rm -rf $W
