#!/bin/bash
# Four patch buffers for the lane picks (README.md). Usage: run.sh OUT RUN. plan.py's
# candidates (each pick and its 4-buffer forms) measured by the tuner in one run.
set -u
O=$1
W=$O/$2
mkdir -p $W
tar xzf .gpu/stages4.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/stages4 --log $W/tune.jsonl > $W/tune.log 2>&1
tail -n 3 $W/tune.log
