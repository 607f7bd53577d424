#!/bin/bash
# The lane kernel's chunked input staging (README.md). Usage: run.sh OUT PART, PART one of
# ab (run 1: GPU tests, the A/B and the C >= 128 sweep), tune (run 2: GPU tests, the C >= 128
# 3-buffer configs again, the C = 64 sweep) or ncu (run 3: the two 960² kernels of plan.py's
# ncu, timed by batch, then profiled). Writes straight to OUT/lane_chunks so partial results
# survive a timeout.
set -u
O=$1
W=$O/lane_chunks
mkdir -p $W
tar xzf .gpu/lane_chunks.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env_$2.txt
if [ "$2" = ab ]; then
  python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
  python3 -m wino_tvm.batch .gpu/lane_chunks/ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
  tail -3 $W/ab.log
  python3 -m wino_tvm.tune measure .gpu/lane_chunks/tune128 --log $W/tune128.jsonl \
    > $W/tune128.log 2>&1
  tail -3 $W/tune128.log
elif [ "$2" = ncu ]; then
  python3 -m wino_tvm.batch .gpu/lane_chunks/ncu --record $W/ncu_ab.jsonl --checks 3 \
    > $W/ncu_batch.log 2>&1
  tail -4 $W/ncu_batch.log
  for d in .gpu/lane_chunks/ncu/*/; do
    n=$W/ncu_960_$(basename $d | grep -o 'tbk[0-9]*.*' | tr -d '/')
    timeout 150 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 \
      -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
    ncu --import $n.ncu-rep --page details --csv > ${n}_details.csv 2>> $W/ncu.log
    ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
    rm -f $n.ncu-rep && gzip ${n}_details.csv ${n}_raw.csv
  done
else
  python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
  for part in tune128_st3 tune64; do
    python3 -m wino_tvm.tune measure .gpu/lane_chunks/$part --log $W/$part.jsonl > $W/$part.log 2>&1
    tail -3 $W/$part.log
  done
fi
