#!/bin/bash
# At 9f93dc2 (artifacts: python -m wino_tvm.suites bench_full, with the bests of the tuning log after
# tune_groups/): the GPU-marked tests, the full-fusion benchmark against cuDNN, and ncu of the
# 960^2 fp32-accumulator best (16/32/64, 4 warp groups). Everything under $O/run is packed into
# one archive at the end.
set -u
O=$1
W=$O/run
mkdir -p $W
tar xzf .gpu/bench_full_g.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.bench .gpu/bench_full_g --out $W/bench_full --iters 60 --commit 9f93dc2 \
  > $W/bench.log 2>&1
tail -3 $W/bench.log
d=.gpu/bench_full_g/N1_H960_W960_C64_K64-fp16-fp32-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-g4
python3 -m wino_tvm.runner $d --checks 1 > $W/runner_960_fp32acc_g4.log 2>&1
ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
  --section MemoryWorkloadAnalysis_Tables --section Occupancy -k regex:winograd_full \
  --launch-count 1 --csv --page raw $d/wino_bench --checks 1 --no-time \
  > $W/ncu_960_fp32acc_g4.csv 2> $W/ncu.err
gzip $W/*.csv
tar czf $O/run.tar.gz -C $O run && rm -rf $W
