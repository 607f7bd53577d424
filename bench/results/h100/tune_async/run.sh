#!/bin/bash
# Re-tuning of the 32-tile full-fusion configs with cp.async U staging (1f7d5fb; python -m
# wino_tvm.tune build ... --fusion full --tb-m 32 --u-smem 1 --persist 0 --pad 16 --frag 16x16x16,
# fp16 m=2 with fp32 and fp16 accumulators, int8 m=2 and 4) on the six C >= 128 benchmark
# workloads, whose records of these configs predate cp.async. Measured by the tuner (3 checks
# each); the records are appended to tuning_logs/h100.jsonl.
set -u
O=$1
tar xzf .gpu/tune_as.tar.gz -C .gpu
for b in tune_as32 tune_as16 tune_asi8; do
  python3 -m wino_tvm.tune measure .gpu/$b --log $O/tune_async.jsonl > $O/$b.log 2>&1
  tail -7 $O/$b.log
done
