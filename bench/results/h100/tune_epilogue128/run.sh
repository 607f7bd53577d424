#!/bin/bash
# Tuning with the fused epilogue on the six C >= 128 benchmark workloads at c029d29
# (python -m wino_tvm.tune build --workload {32,14,14,256,256 32,28,28,128,128 32,7,7,512,512
# 128,28,28,128,128 128,14,14,256,256 128,7,7,512,512} --dtype fp16 --accum {fp16,fp32}
# --epilogue bias,residual,relu --fusion full --tb-m 16,32 --tb-n 32,64 --tb-k 16,32,64
# --persist 0 --groups 1 --m 2 --pad 16 --frag 16x16x16 --u-smem 0,1 --device h100), with the
# paper's PKF baseline per workload, measured by the tuner (3 checks each). The records are
# appended to tuning_logs/h100.jsonl.
set -u
O=$1
W=$O/tune_epilogue128
mkdir -p $W
tar xzf .gpu/tune_ep128.tar.gz -C .gpu
for b in tune_ep128_fp16 tune_ep128_fp32; do
  python3 -m wino_tvm.tune measure .gpu/$b --log $W/tune_epilogue128.jsonl > $W/$b.log 2>&1
  tail -8 $W/$b.log
done
tar czf $O/tune_epilogue128.tar.gz -C $O tune_epilogue128 && rm -rf $W
