#!/bin/bash
# TMA lane configs at 960² (README.md). Usage: run.sh OUT RUN.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/sweep_tma.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/sweep_tma --log $W/tune.jsonl > $W/tune.log 2>&1
tail -n 3 $W/tune.log | grep best
