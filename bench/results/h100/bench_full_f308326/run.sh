#!/bin/bash
# At f308326 (artifacts: python -m wino_tvm.suites bench_full, with the bests of tune_async/;
# the full suite's artifacts as built at 74f36ae, whose generated code this commit keeps): the
# GPU-marked tests, the full-fusion suite (3 checks each), then the full-fusion benchmark
# against cuDNN. Everything under $O is packed into one archive at the end.
set -u
O=$1
W=$O/run
mkdir -p $W
tar xzf .gpu/final.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.batch .gpu/full --record $W/full.jsonl --checks 3 > $W/full.log 2>&1
tail -18 $W/full.log
python3 -m wino_tvm.bench .gpu/bench_full --out $W/bench_full --iters 60 --commit f308326 \
  > $W/bench.log 2>&1
tail -3 $W/bench.log
tar czf $O/run.tar.gz -C $O run && rm -rf $W
