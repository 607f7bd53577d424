#!/bin/bash
# Re-tuning after tiles across images at a7ca6c7 (plan.py tune: 202 candidates), measured by the
# tuner (3 checks each). The records are appended to tuning_logs/h100.jsonl afterwards.
set -u
O=$1
W=$O/tiles_across_tune
mkdir -p $W
tar xzf .gpu/tune_ta.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tune_ta --log $W/tune_ta.jsonl > $W/tune_ta.log 2>&1
tail -30 $W/tune_ta.log
tar czf $O/tiles_across_tune.tar.gz -C $O tiles_across_tune && rm -rf $W
