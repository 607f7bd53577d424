#!/bin/bash
# At a17d48b (artifacts built there: python -m wino_tvm.suites full|bench_full): the GPU-marked
# tests, the full-fusion suite (3 checks each), then the full-fusion benchmark against cuDNN.
set -u
O=$1
tar xzf .gpu/run.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $O/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $O/gpu_tests.log 2>&1
tail -3 $O/gpu_tests.log
python3 -m wino_tvm.batch .gpu/full --record $O/full.jsonl --checks 3 > $O/full.log 2>&1
tail -18 $O/full.log
python3 -m wino_tvm.bench .gpu/bench_full --out $O/bench_full --iters 60 --commit a17d48b \
  > $O/bench.log 2>&1
tail -3 $O/bench.log
