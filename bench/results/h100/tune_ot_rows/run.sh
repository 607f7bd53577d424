#!/bin/bash
# Re-tuning after OTrans's rows went alpha apart (README.md), one device call: the tuner
# measures plan.py's batch (31 candidates built at 8363668) on the H100.
set -u
O=$1
W=$O/tune_ot_rows
mkdir -p $W
tar xzf .gpu/tune_or.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tune_or --log $W/tune_or.jsonl > $W/tune_or.log 2>&1
tail -3 $W/tune_or.log
tar czf $O/tune_ot_rows.tar.gz -C $O tune_ot_rows && rm -rf $W
