#!/bin/bash
# Re-tuning after the magic-number rounding and the input pipeline (README.md), one device call:
# the tuner measures plan.py's batch (171 candidates built at f904f5f) on the H100.
set -u
O=$1
W=$O/tune_round_pipeline
mkdir -p $W
tar xzf .gpu/tune_rp.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tune_rp --log $W/tune_rp.jsonl > $W/tune_rp.log 2>&1
tail -3 $W/tune_rp.log
tar czf $O/tune_round_pipeline.tar.gz -C $O tune_round_pipeline && rm -rf $W
