#!/bin/bash
# Tuning of the ot_channels axis at e1fb097 (plan.py: every tuned config of the bench_full suite
# at ot_channels 1 and 2), measured by the tuner (3 checks each). The records are appended to
# tuning_logs/h100.jsonl afterwards.
set -u
O=$1
W=$O/tune_ot_channels
mkdir -p $W
tar xzf .gpu/tune_oc.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tune_oc --log $W/tune_oc.jsonl > $W/tune_oc.log 2>&1
tail -30 $W/tune_oc.log
tar czf $O/tune_ot_channels.tar.gz -C $O tune_ot_channels && rm -rf $W
