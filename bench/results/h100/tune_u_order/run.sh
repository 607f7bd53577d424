#!/bin/bash
# The int8 ul2 sweep (README.md), one device call: the tuner measures plan.py's 114 candidates.
set -u
O=$1
W=$O/tune_u_order
mkdir -p $W
tar xzf .gpu/tuo.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tuo --log $W/tune_tuo.jsonl > $W/tune_tuo.log 2>&1
tail -16 $W/tune_tuo.log
tar czf $O/tune_u_order.tar.gz -C $O tune_u_order && rm -rf $W
