#!/bin/bash
# The lane kernel's chunk loop rolled beyond 4 chunks (README.md). Usage: run.sh OUT.
# GPU tests, then plan.py's old_ and new_ in one batch.
set -u
O=$1
W=$O/lane_chunk_loop
mkdir -p $W
tar xzf .gpu/lane_chunk_loop.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
tail -2 $W/gpu_tests.log
python3 -m wino_tvm.batch .gpu/lane_chunk_loop --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -n 30 $W/ab.log
