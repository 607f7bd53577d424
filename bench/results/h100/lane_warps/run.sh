#!/bin/bash
# A/B of 10-12-warp lane blocks against the current lane picks (README.md), one device call.
set -u
O=$1
W=$O/lane_warps
mkdir -p $W
tar xzf .gpu/lane_warps.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/lane_warps --record $W/ab.jsonl --checks 3 > $W/batch.log 2>&1
tail -30 $W/batch.log
