#!/bin/bash
# Sweep of the persistent fp16 kernels at C = 128 with the epilogue and unpadded rows
# (README.md), one device call.
set -u
O=$1
W=$O/tune_persist128
mkdir -p $W
tar xzf .gpu/tp128.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tp128 --log $W/tune_p128.jsonl > $W/tune_p128.log 2>&1
tail -3 $W/tune_p128.log
tar czf $O/tune_persist128.tar.gz -C $O tune_persist128 && rm -rf $W
