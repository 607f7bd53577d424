#!/bin/bash
# Same-run A/B of whole tiles in chunked kernels (README.md): 31 bench_full variants built at
# 31c5d58 (old_*) against the same configs built at f2682ff (new_*; 24281db's fix changes only
# kernels that failed to build at f2682ff), 3 checks each.
set -u
O=$1
W=$O/whole_tiles_chunked_ab
mkdir -p $W
tar xzf .gpu/wtc_ab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/wtc_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -5 $W/ab.log
tar czf $O/whole_tiles_chunked_ab.tar.gz -C $O whole_tiles_chunked_ab && rm -rf $W
