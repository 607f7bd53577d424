#!/bin/bash
# median forward µs of each artifact, passes interleaved
cd lab_x/arts
for p in 1 2 3; do for a in "$@"; do
  echo "$a p$p $(./$a/wino_bench --checks 2 --warmup 20 --iters 200 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["median_us"], d["correct"], d["rel_l2_err"])')"
done; done | sort -s -k1,1
