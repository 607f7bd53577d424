#!/bin/bash
# The lane kernel's chunk loop rolled (README.md). Usage: run.sh OUT PART, PART ab (run 1:
# GPU tests, then plan.py's ab, old_ and new_ in one batch) or tune (run 2: GPU tests, then
# plan.py's tune measured).
set -u
O=$1
W=$O/lane_chunk_loop
mkdir -p $W
tar xzf .gpu/lane_chunk_loop.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests_$2.log 2>&1
tail -2 $W/gpu_tests_$2.log
if [ "$2" = ab ]; then
  python3 -m wino_tvm.batch .gpu/lane_chunk_loop/ab --record $W/ab.jsonl --checks 3 \
    > $W/ab.log 2>&1
  tail -n 30 $W/ab.log
else
  python3 -m wino_tvm.tune measure .gpu/lane_chunk_loop/tune --log $W/tune.jsonl \
    > $W/tune.log 2>&1
  tail -n 10 $W/tune.log
fi
