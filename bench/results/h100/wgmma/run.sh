#!/bin/bash
# The lane kernel with wgmma (README.md). Usage: run.sh OUT PART, PART tune (run 1: GPU tests,
# the negative control of plan.py's probe, the wgmma sweep against each pick) or ab (runs 2
# and 5: GPU tests, plan.py's ab, old_ and new_ in one batch) or ncu (run 3: plan.py's epi measured,
# then its ncu kernels timed by batch and profiled) or retune (run 4: GPU tests, plan.py's
# picks, old_ and new_ in one batch, then plan.py's tune again). Writes straight to OUT/wgmma
# so partial results survive a timeout.
set -u
O=$1
W=$O/wgmma
mkdir -p $W
tar xzf .gpu/wgmma.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env_$2.txt
if [ "$2" = tune ]; then
  python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
  # Negative control: U's descriptor with its two strides swapped must fail the check.
  for d in .gpu/wgmma/probe/*/; do
    cp -r $d .gpu/wgmma/probe/swapped
    sed -i 's/return (uint64_t)((address \& 0x3FFFF) >> 4) | kLeading << 16 | kStride << 32;/return (uint64_t)((address \& 0x3FFFF) >> 4) | kStride << 16 | kLeading << 32;/' \
      .gpu/wgmma/probe/swapped/program.cu
    grep -c "kStride << 16" .gpu/wgmma/probe/swapped/program.cu > $W/probe_swapped_edits.txt
  done
  python3 -m wino_tvm.batch .gpu/wgmma/probe --record $W/probe.jsonl \
    --checks 2 > $W/probe.log 2>&1
  tail -3 $W/probe.log
  python3 -m wino_tvm.tune measure .gpu/wgmma/tune --log $W/tune.jsonl > $W/tune.log 2>&1
  tail -3 $W/tune.log
elif [ "$2" = ab ]; then
  python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
  python3 -m wino_tvm.batch .gpu/wgmma/ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
  tail -n 40 $W/ab.log
elif [ "$2" = retune ]; then
  python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
  python3 -m wino_tvm.batch .gpu/wgmma/picks --record $W/picks.jsonl --checks 3 \
    > $W/picks.log 2>&1
  tail -n 3 $W/picks.log
  python3 -m wino_tvm.tune measure .gpu/wgmma/tune --log $W/tune.jsonl > $W/tune.log 2>&1
  tail -n 3 $W/tune.log
elif [ "$2" = ncu ]; then
  python3 -m wino_tvm.tune measure .gpu/wgmma/epi --log $W/epi.jsonl > $W/epi.log 2>&1
  tail -n 12 $W/epi.log
  python3 -m wino_tvm.batch .gpu/wgmma/ncu --record $W/ncu_batch.jsonl --checks 3 \
    > $W/ncu_batch.log 2>&1
  tail -n 3 $W/ncu_batch.log
  for d in .gpu/wgmma/ncu/*/; do
    n=$W/ncu_960_$(basename $d | grep -o 'tbk[0-9]*.*' | tr -d '/')
    timeout 150 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 \
      -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
    ncu --import $n.ncu-rep --page details --csv > ${n}_details.csv 2>> $W/ncu.log
    ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
    rm -f $n.ncu-rep && gzip ${n}_details.csv ${n}_raw.csv
  done
fi
