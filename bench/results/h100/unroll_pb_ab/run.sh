#!/bin/bash
# Unroll factors of the persistent full kernels (make_variants.py on artifacts built at c029d29,
# README.md), one batch, 3 correctness checks each; an ncu source-level profile (stall samples per
# SASS instruction) of the 960^2 fp16-accumulator 32/64 kernel; then the tuner's epilogue session
# on the six C >= 128 workloads (run_tune in this folder's README). Outputs packed into one archive.
set -u
O=$1
W=$O/unroll_pb_ab
mkdir -p $W
tar xzf .gpu/exp2.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/exp2 --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -30 $W/ab.log
d=.gpu/exp2/base_960_a16_32x64
ncu --clock-control none --section SourceCounters --section WarpStateStats -k regex:winograd_full \
  --launch-count 1 -o $W/src_960_a16_32x64 $d/wino_bench --checks 1 --no-time > $W/ncu.log 2>&1
ncu --import $W/src_960_a16_32x64.ncu-rep --page source --csv --print-source sass \
  > $W/src_960_a16_32x64_sass.csv 2>> $W/ncu.log
tail -5 $W/ncu.log; wc -l $W/src_960_a16_32x64_sass.csv
gzip $W/*.csv
tar czf $O/unroll_pb_ab.tar.gz -C $O unroll_pb_ab && rm -rf $W
