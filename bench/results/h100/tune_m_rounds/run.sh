#!/bin/bash
# Tuning sweep of m_rounds and min_blocks (README.md), one device call.
set -u
O=$1
W=$O/tune_m_rounds
mkdir -p $W
tar xzf .gpu/tmr.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/tmr --log $W/tune_mr.jsonl > $W/tune_mr.log 2>&1
tail -3 $W/tune_mr.log
tar czf $O/tune_m_rounds.tar.gz -C $O tune_m_rounds && rm -rf $W
