#!/bin/bash
# The F(2, 3) wgmma experiment on the device: OUT RUN. .gpu/f23.tar.gz holds f23/ (make.py's
# artifacts) and picks/ (bench_full's fp16 m=2 artifacts of d63957e at the same workloads).
# batch checks and times the f23 artifacts; bench runs cuDNN, them and the picks per workload in
# one process. Everything under OUT/RUN is packed into OUT/RUN.tar.gz.
set -u
source bench/device_set.sh "$1" "$2" f23
timeout 240 python3 -m wino_tvm.batch $P/f23 --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -8 $W/batch.log
timeout 320 python3 -m wino_tvm.bench $P --out $W/bench --iters 60 --commit "${3:-f23}" \
  > $W/bench.log 2>&1
tail -3 $W/bench.log
tar czf $1/$2.tar.gz -C $1 $2 && rm -rf $W
