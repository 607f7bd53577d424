#!/bin/bash
# Full-fusion tuning, round 2: exhaustive for the N=1 C=K=64 workloads (fp16, int8), sampled
# for the batched ones; skips what round 1 measured.
set -u
O=$1
mkdir -p $O
for b in tune2a tune2b tune2c; do
  python3 -m wino_tvm.tune measure .gpu/$b --log $O/h100.jsonl --checks 1 > $O/$b.log 2>&1
  grep -h "best" $O/$b.log
done
