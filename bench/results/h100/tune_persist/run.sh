#!/bin/bash
# Tuning of the persist axis at 7015cb3 (python -m wino_tvm.tune build ... --fusion full --tb-k 64
# --persist 1 --m 2 --pad 16 --frag 16x16x16, fp16 with fp32 and fp16 accumulators, int8) on the
# seven C=K=64 benchmark workloads: 84 candidates, measured by the tuner (3 checks each). The
# records are appended to tuning_logs/h100.jsonl.
set -u
O=$1
tar xzf .gpu/tune_pb.tar.gz -C .gpu
for b in tune_pb tune_pb16; do
  python3 -m wino_tvm.tune measure .gpu/$b --log $O/tune_persist.jsonl > $O/$b.log 2>&1
  tail -4 $O/$b.log
done
