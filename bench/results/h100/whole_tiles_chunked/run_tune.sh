#!/bin/bash
# Re-tuning after whole tiles in chunked kernels at 24281db (plan.py tune: 76 candidates),
# measured by the tuner (3 checks each). The records are appended to tuning_logs/h100.jsonl.
set -u
O=$1
W=$O/whole_tiles_chunked_tune
mkdir -p $W
tar xzf .gpu/tune_wtc.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tune_wtc --log $W/tune_wtc.jsonl > $W/tune_wtc.log 2>&1
tail -30 $W/tune_wtc.log
tar czf $O/whole_tiles_chunked_tune.tar.gz -C $O whole_tiles_chunked_tune && rm -rf $W
