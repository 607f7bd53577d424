#!/bin/bash
# At 31c5d58 (artifacts: python -m wino_tvm.suites bench_full, with the tuned bests of
# tuning_logs/h100.jsonl after ../tiles_across/: tiles across images and the re-tuning): the
# GPU-marked tests, the full-fusion benchmark against cuDNN, and ncu of the N=32 14² C=256
# fp16-accumulator best (the one kernel the A/B slowed). Everything under $O/run is packed into
# one archive at the end.
set -u
O=$1
W=$O/run
mkdir -p $W
tar xzf .gpu/bft.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.bench .gpu/bft --out $W/bench_full --iters 60 --commit 31c5d58 \
  > $W/bench.log 2>&1
tail -3 $W/bench.log
v=N32_H14_W14_C256_K256-fp16-fp16-m2-tbm32-tbn64-tbk16-frag16x16x16-full-vec16-pad16-oc2
n=ncu_N32_H14_W14
python3 -c "from pathlib import Path; from wino_tvm.runner import compile_program; \
compile_program(Path('.gpu/bft/$v'), 'sm_90')" >> $W/ncu.log 2>&1
timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
  --section LaunchStats --section SchedulerStats --section WarpStateStats \
  --section SourceCounters -k regex:winograd_full --launch-count 1 -o $W/$n \
  .gpu/bft/$v/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
ncu --import $W/$n.ncu-rep --page details --csv > $W/${n}_details.csv 2>> $W/ncu.log
gzip $W/*.csv
tar czf $O/run.tar.gz -C $O run && rm -rf $W
