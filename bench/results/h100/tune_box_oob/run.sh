#!/bin/bash
# The C = 64 picks and their wgmma neighbours with and without TMA, measured by the tuner at
# 665490b (README.md). Usage: run.sh OUT RUN.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/tune_box_oob.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tune_box_oob --log $W/tune.jsonl > $W/tune.log 2>&1
tail -n 40 $W/tune.log | grep best
