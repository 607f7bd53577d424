#!/bin/bash
# TMA lane kernels at C >= 128 with 32- to 128-channel chunks (README.md). Usage: run.sh OUT
# RUN. plan.py's candidates measured by the tuner in one run.
set -u
W=$1/$2
mkdir -p $W
tar xzf .gpu/tune_tma128.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tune_tma128 --log $W/tune.jsonl > $W/tune.log 2>&1
tail -n 5 $W/tune.log | grep best
