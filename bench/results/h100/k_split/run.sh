#!/bin/bash
# Channel split (README.md), one device call: the tuner measures plan.py's batch (the logged
# bests again and the k_split configs) on the H100.
set -u
O=$1
W=$O/k_split
mkdir -p $W
tar xzf .gpu/k_split.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/k_split --log $W/k_split.jsonl > $W/k_split.log 2>&1
tail -3 $W/k_split.log
