#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT (the channel split), with
# the tuned bests of tuning_logs/h100.jsonl after ../k_split/. The GPU-marked tests first; then
# ncu of the 960^2 fp16-accumulator pair of ../k_split/ (32/64/64 pb oc2 against 32/32/64 pb ks2
# oc2: why the second warp per scheduler gains little there). Everything under $O/run is packed
# into one archive at the end.
set -u
O=$1
C=$2  # the commit of the benchmark harness
W=$O/run
mkdir -p $W
tar xzf .gpu/bf4.tar.gz -C .gpu
tar xzf .gpu/k_split.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.bench .gpu/bf4 --out $W/bench_full --iters 60 --commit $C > $W/bench.log 2>&1
tail -3 $W/bench.log
v=N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn
mkdir -p .gpu/ncu_pair
for t in 64-tbk64-frag16x16x16-full-vec16-pad16-pb-oc2 32-tbk64-frag16x16x16-full-vec16-pad16-pb-ks2-oc2; do
  cp -r .gpu/k_split/$v$t .gpu/ncu_pair/
done
python3 -m wino_tvm.batch .gpu/ncu_pair --record $W/ncu_pair.jsonl --checks 1 > $W/ncu.log 2>&1
for side in pb-oc2:32x64 pb-ks2-oc2:32x32ks2; do
  n=ncu_960_fp16acc_${side#*:}
  d=$(ls -d .gpu/ncu_pair/*-${side%:*})
  timeout 150 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section SourceCounters -k regex:winograd_full \
    --launch-count 1 -o $W/$n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
  ncu --import $W/$n.ncu-rep --page source --csv --print-source sass > $W/${n}_sass.csv \
    2>> $W/ncu.log
  rm -f $W/$n.ncu-rep
done
gzip $W/*.csv
tar czf $O/run.tar.gz -C $O run && rm -rf $W
