#!/bin/bash
# M staged in rounds (README.md), one device call: plan.py's builds and launch-bound copies.
set -u
O=$1
W=$O/m_rounds_ab
mkdir -p $W
tar xzf .gpu/mr.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/mr/ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -3 $W/ab.log
tar czf $O/m_rounds_ab.tar.gz -C $O m_rounds_ab && rm -rf $W
