#!/bin/bash
# At b13e620 (artifacts: python -m wino_tvm.suites bench_full, with the bests of the tuning log
# after tune_remeasure/): the full-fusion benchmark against cuDNN only (the GPU-marked tests and
# the full suite ran on the same kernel code at f308326, bench_full_f308326/ and
# full_suite/full_f308326.*). Everything under $O is packed into one archive at the end.
set -u
O=$1
W=$O/run
mkdir -p $W
tar xzf .gpu/final.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.bench .gpu/bench_full --out $W/bench_full --iters 60 --commit b13e620 \
  > $W/bench.log 2>&1
tail -3 $W/bench.log
tar czf $O/run.tar.gz -C $O run && rm -rf $W
