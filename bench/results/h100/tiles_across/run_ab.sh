#!/bin/bash
# Same-run A/B of tiles across images (README.md): 54 bench_full variants built at de76fb8
# (old_*) against the same configs built at a7ca6c7 (new_*), plus the GPU-marked tests.
set -u
O=$1
W=$O/tiles_across_ab
mkdir -p $W
tar xzf .gpu/ta_ab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.batch .gpu/ta_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -5 $W/ab.log
tar czf $O/tiles_across_ab.tar.gz -C $O tiles_across_ab && rm -rf $W
