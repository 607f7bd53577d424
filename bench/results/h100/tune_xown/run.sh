#!/bin/bash
# The tap-split picks and their exchange_own twins measured by the tuner (README.md).
# Usage: run.sh OUT RUN. GPU tests of the lane kernel, then plan.py's candidates measured by
# the tuner.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/tune_xown.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu tests/test_lane.py tests/test_harness.py tests/test_library.py \
  > $W/gpu_tests.log 2>&1
tail -2 $W/gpu_tests.log
python3 -m wino_tvm.tune measure .gpu/tune_xown --log $W/tune.jsonl > $W/tune.log 2>&1
tail -n 40 $W/tune.log | grep best
