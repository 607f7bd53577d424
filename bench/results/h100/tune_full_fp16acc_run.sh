#!/bin/bash
# Full-fusion tuning with fp16 accumulators (fp16, m=2), all 13 benchmark workloads: tb_m 16/32,
# tb_n 32/64, tb_k 32/64, U staged or from L2 (built at 934c47c with
# `python -m wino_tvm.tune build ... --accum fp16 --m 2 --fusion full --frag 16x16x16 --pad 16
# --tb-m 16,32 --tb-n 32,64 --tb-k 32,64 --u-smem 1,0 --device h100`).
set -u
O=$1
tar xzf .gpu/t16.tar.gz -C .gpu
python3 -m wino_tvm.tune measure .gpu/t16 --log $O/h100.jsonl --checks 1 > $O/tune_full_fp16acc.log 2>&1
grep -h "best" $O/tune_full_fp16acc.log
