#!/bin/bash
# The pad + unroll A/B (before f04f5cc, after 5d55812; same run, 3 checks each), then the
# full-fusion benchmark against cuDNN at 5d55812 (python -m wino_tvm.suites bench_full).
set -u
O=$1
tar xzf .gpu/abbf.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $O/env.txt
python3 -m wino_tvm.batch .gpu/ab --record $O/ab.jsonl --checks 3 > $O/ab.log 2>&1
tail -30 $O/ab.log
python3 -m wino_tvm.bench .gpu/bf --out $O/bench_full --iters 60 --commit 5d55812 > $O/bench.log 2>&1
tail -3 $O/bench.log
