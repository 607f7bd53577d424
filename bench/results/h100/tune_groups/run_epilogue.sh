#!/bin/bash
# Tuning with the fused epilogue at fb22076 (python -m wino_tvm.tune build ... --epilogue
# bias,residual,relu --fusion full --tb-m 16,32 --tb-n 16,32,64 --tb-k 64 --persist 1 --groups
# 1,2,3,4 --m 2 --pad 16 --frag 16x16x16 --u-smem 1) on the seven C=K=64 benchmark workloads,
# fp16 with fp32 and fp16 accumulators: 175 candidates (with the paper's PKF baseline per
# workload), measured by the tuner (3 checks each). The records are appended to
# tuning_logs/h100.jsonl.
set -u
O=$1
tar xzf .gpu/tune_ep.tar.gz -C .gpu
for b in tune_epfp16 tune_epfp32; do
  python3 -m wino_tvm.tune measure .gpu/$b --log $O/tune_epilogue.jsonl > $O/$b.log 2>&1
  tail -8 $O/$b.log
done
