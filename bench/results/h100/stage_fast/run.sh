#!/bin/bash
# Interior tile groups' staging without bounds tests (README.md). Usage: run.sh OUT RUN [ncu|ac|source|retune|now].
# GPU tests of the lane kernel, then plan.py's a- (3e5d2c3) and b- (52cc6b0) artifacts timed in
# one batch. With ncu (run 2): the a- and b- kernels of two cases that lost in run 1 (960²
# fp32 accumulators, mma.sync `g2-ks2-ts2`; 960² fp16 with the epilogue, `g4-ks2-st3`) and
# the wgmma split that gained, timed once more by batch, then each under ncu --set full.
# With ac (run 3): GPU tests, then the a- artifacts and plan.py's c- (ce6ec14, from
# .gpu/stage_fast_c.tar.gz) timed in one batch. With source (run 4): the a- and c- kernels of
# the two mma.sync cases under ncu's source counters, stall samples per SASS instruction.
# With retune (run 5): GPU tests, then plan.py's retune candidates measured by the tuner.
# With now (run 6): the 960² fp16 pick and the unsplit wgmma kernel at d89d232
# (.gpu/stage_ncu960.tar.gz), timed by batch, then each under ncu --set full.
# Writes straight to OUT/RUN so partial results survive a timeout.
set -u
O=$1
W=$O/$2
mkdir -p $W
[ "${3:-}" = retune ] || [ "${3:-}" = now ] || tar xzf .gpu/stage_fast.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
if [ "${3:-}" = now ]; then
  tar xzf .gpu/stage_ncu960.tar.gz -C .gpu
  P=.gpu/stage_ncu960
  python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 2 > $W/batch.log 2>&1
  tail -n 3 $W/batch.log | cut -c1-150
  for d in $P/*/; do
    n=$W/ncu_$(basename $d | sed 's/N1_H960_W960_C64_K64-fp16-fp16-m2-tbm16-//; s/-frag16x8x16-full-vec16-pad16-pb//')
    timeout 120 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 \
      -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
    ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
    rm -f $n.ncu-rep && gzip ${n}_raw.csv
  done
  exit 0
fi
if [ "${3:-}" = retune ]; then
  tar xzf .gpu/stage_retune.tar.gz -C .gpu
  python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
  python3 -m wino_tvm.tune measure .gpu/stage_retune --log $W/tune.jsonl > $W/tune.log 2>&1
  tail -3 $W/tune.log
  exit 0
fi
if [ "${3:-}" = source ]; then
  tar xzf .gpu/stage_fast_c.tar.gz -C .gpu
  P=.gpu/stage_src
  mkdir -p $P
  for c in fp16-fp32-*g2-ks2-ts2 fp16-fp16-*g4-ks2-st3-bias_residual_relu; do
    mv .gpu/stage_fast/a-N1_H960_W960_C64_K64-$c .gpu/stage_fast_c/c-N1_H960_W960_C64_K64-$c $P/
  done
  python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 2 > $W/batch.log 2>&1
  tail -n 5 $W/batch.log | cut -c1-150
  for d in $P/*/; do
    n=$W/sass_$(basename $d | sed 's/-N1_H960_W960_C64_K64-fp16//; s/-m2-tbm16//; s/-frag16x8x16-full-vec16-pad16-pb//; s/bias_residual_relu/epi/')
    timeout 120 ncu --clock-control none --section SourceCounters --section WarpStateStats \
      -k regex:wino_lane_forward --launch-count 1 -o $n $d/wino_bench --checks 1 --no-time \
      >> $W/ncu.log 2>&1
    ncu --import $n.ncu-rep --page source --print-source sass --csv > $n.csv 2>> $W/ncu.log
    rm -f $n.ncu-rep && gzip $n.csv
  done
  exit 0
fi
if [ "${3:-}" = ncu ]; then
  P=.gpu/stage_ncu
  mkdir -p $P
  for s in a b; do
    for c in fp16-fp32-*g2-ks2-ts2 fp16-fp16-*g4-ks2-st3-bias_residual_relu fp16-fp16-*wg-g4-ts2; do
      mv .gpu/stage_fast/$s-N1_H960_W960_C64_K64-$c $P/
    done
  done
  python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 2 > $W/batch.log 2>&1
  tail -n 8 $W/batch.log | cut -c1-150
  for d in $P/*/; do
    n=$W/ncu_$(basename $d | sed 's/-N1_H960_W960_C64_K64-fp16//; s/-m2-tbm16//; s/-frag16x8x16-full-vec16-pad16-pb//; s/bias_residual_relu/epi/')
    timeout 120 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 \
      -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
    ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
    rm -f $n.ncu-rep && gzip ${n}_raw.csv
  done
  exit 0
fi
python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
tail -2 $W/gpu_tests.log
if [ "${3:-}" = ac ]; then
  tar xzf .gpu/stage_fast_c.tar.gz -C .gpu
  rm -rf .gpu/stage_fast/b-*
  mv .gpu/stage_fast_c/c-* .gpu/stage_fast/
fi
python3 -m wino_tvm.batch .gpu/stage_fast --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 70 $W/batch.log | cut -c1-150
