#!/bin/bash
# A/B of U staged with cp.async (a4eb54d) against 8c4b799: the 76 bench_full cases whose full
# kernel stages U per block (build_ab.py), one batch, 3 correctness checks each.
set -u
O=$1
W=$O/async_u_ab
mkdir -p $W
tar xzf .gpu/async_ab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/async_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -5 $W/ab.log
tar czf $O/async_u_ab.tar.gz -C $O async_u_ab && rm -rf $W
