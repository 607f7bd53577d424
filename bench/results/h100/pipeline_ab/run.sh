#!/bin/bash
# A/B of make_variants.py's pre2/pre4 (README.md): one batch, 3 correctness checks each.
set -u
O=$1
W=$O/pipeline_ab
mkdir -p $W
tar xzf .gpu/exp5.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/exp5 --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -8 $W/ab.log
tar czf $O/pipeline_ab.tar.gz -C $O pipeline_ab && rm -rf $W
