#!/bin/bash
# Lane-kernel sweep (README.md); run after ../lane_template/run.sh in the same device call.
# Writes straight to $OUT/tune_lane so partial results survive a timeout.
set -u
O=$1
W=$O/tune_lane
mkdir -p $W
tar xzf .gpu/tune_lane.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tune_lane --log $W/tune_lane.jsonl > $W/tune_lane.log 2>&1
tail -3 $W/tune_lane.log
