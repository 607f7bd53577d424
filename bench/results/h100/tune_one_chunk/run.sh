#!/bin/bash
# Sweep of one-channel-chunk kernels at C >= 128 (README.md), one device call; then ncu of the
# N=128 28² fp16-accumulator pick (32/64/16, 2 OTrans channels) to see what bounds the chunked
# fp16 kernels.
set -u
O=$1
W=$O/tune_one_chunk
mkdir -p $W
tar xzf .gpu/toc.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.tune measure .gpu/toc --log $W/tune_oc.jsonl > $W/tune_oc.log 2>&1
tail -3 $W/tune_oc.log
v=N128_H28_W28_C128_K128-fp16-fp16-m2-tbm32-tbn64-tbk16-frag16x16x16-full-vec16-pad16-oc2
n=$W/ncu_n128_28_fp16acc
b=$(python3 -c "import sys; from pathlib import Path; from wino_tvm.runner import compile_program
print(compile_program(Path(sys.argv[1]), 'sm_90'))" .gpu/toc/$v 2>> $W/ncu.log)
if [ -x "$b" ]; then
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis -k regex:winograd_full --launch-count 1 -o $n \
    $b --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page details --csv > ${n}_details.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_details.csv
fi
tar czf $O/tune_one_chunk.tar.gz -C $O tune_one_chunk && rm -rf $W
