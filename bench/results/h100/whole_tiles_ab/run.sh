#!/bin/bash
# Same-run A/B of reconstructor.whole_tiles (README.md): the five base artifacts of ../itile_ab/
# (96c5ed7) against the same configs built at f506ff5 (copied from the bench_full suite).
set -u
O=$1
W=$O/whole_tiles_ab
mkdir -p $W
tar xzf .gpu/wtab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/wtab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -12 $W/ab.log
tar czf $O/whole_tiles_ab.tar.gz -C $O whole_tiles_ab && rm -rf $W
