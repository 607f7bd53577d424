#!/bin/bash
# The copies worked out once per tile group (README.md). Usage: run.sh OUT RUN. GPU tests of
# the lane kernel, then plan.py's a- (d3b702a) and b- artifacts timed in one batch.
# Writes straight to OUT/RUN so partial results survive a timeout.
set -u
O=$1
W=$O/$2
mkdir -p $W
tar xzf .gpu/copies_once.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
tail -2 $W/gpu_tests.log
python3 -m wino_tvm.batch .gpu/copies_once --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
