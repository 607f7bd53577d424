#!/bin/bash
# Tuning of the groups axis at e3d29c6 (python -m wino_tvm.tune build ...
# --fusion full --tb-m 16,32 --tb-n 16,32,64 --tb-k 64 --persist 1 --groups 1,2,3,4 --m 2
# --pad 16 --frag 16x16x16 --u-smem 1) on the seven C=K=64 benchmark workloads, fp16 with fp32
# and fp16 accumulators and int8: 210 candidates (with the paper's PKF baseline per workload),
# measured by the tuner (3 checks each). The records are appended to tuning_logs/h100.jsonl.
set -u
O=$1
tar xzf .gpu/tune_gr.tar.gz -C .gpu
for b in tune_gr16 tune_gr32 tune_gri8; do
  python3 -m wino_tvm.tune measure .gpu/$b --log $O/tune_groups.jsonl > $O/$b.log 2>&1
  tail -9 $O/$b.log
done
