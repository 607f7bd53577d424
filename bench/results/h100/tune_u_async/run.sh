#!/bin/bash
# The picks and their fastest wgmma configs re-measured with u_async's U staging (README.md).
# Usage: run.sh OUT RUN. GPU tests of the lane kernel, then plan.py's candidates measured by
# the tuner.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/tune_u_async.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu tests/test_lane.py tests/test_harness.py tests/test_library.py \
  > $W/gpu_tests.log 2>&1
tail -2 $W/gpu_tests.log
python3 -m wino_tvm.tune measure .gpu/tune_u_async --log $W/tune.jsonl > $W/tune.log 2>&1
tail -n 40 $W/tune.log | grep best
