#!/bin/bash
# Tuning of --fusion full (fp16: 13 benchmark workloads; int8: 4), then the full-fusion suite
# (with and without epilogue) at the gated specialisation.
set -u
O=$1
mkdir -p $O
python3 -m wino_tvm.tune measure .gpu/tunef --log $O/h100.jsonl --checks 1 > $O/tune_fp16.log 2>&1
tail -3 $O/tune_fp16.log
python3 -m wino_tvm.tune measure .gpu/tunei --log $O/h100.jsonl --checks 1 > $O/tune_int8.log 2>&1
tail -3 $O/tune_int8.log
python3 -m wino_tvm.batch .gpu/full --record $O/full.jsonl --checks 3 2>&1 | tail -10
