#!/bin/bash
# Same-run A/B of two channels per OTrans thread (README.md): 58 bench_full configs built at
# f506ff5 (old_*) against the same configs built at 6abe8e5 (new_*), plus the GPU-marked tests.
set -u
O=$1
W=$O/ot_pairs_ab
mkdir -p $W
tar xzf .gpu/otab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.batch .gpu/otab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -5 $W/ab.log
# Where the new kernels' time goes: the headline 960^2 kernel and the worst ratio (C=256).
for v in N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16-pb \
         N32_H14_W14_C256_K256-fp16-fp16-m2-tbm32-tbn64-tbk16-frag16x16x16-full-vec16-pad16; do
  n=ncu_${v%%_C*}
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section SourceCounters -k regex:winograd_full --launch-count 1 -o $W/$n \
    .gpu/otab/new_$v/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
  ncu --import $W/$n.ncu-rep --page source --csv --print-source sass > $W/${n}_sass.csv \
    2>> $W/ncu.log
done
gzip $W/*.csv
tar czf $O/ot_pairs_ab.tar.gz -C $O ot_pairs_ab && rm -rf $W
