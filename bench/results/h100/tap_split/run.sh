#!/bin/bash
# The lane kernel's tap split (README.md). Usage: run.sh OUT RUN PART. PART sweep (runs 1, 2):
# GPU tests, the negative control of plan.py's probe (KTrans without the negation of U's tap
# row 3 must fail the check), then plan.py's tune measured. PART epi_ncu (run 3): plan.py's
# epi measured, plan.py's ncu timed by batch, then one launch of each under ncu --set full.
# PART wgmma (run 4): GPU tests, plan.py's wgmma measured. PART ncu_wgmma (run 5): as
# epi_ncu without the epilogue sweep, for plan.py's ncu_wgmma. PART ncu_source (run 6): the
# same two kernels' stall samples per SASS instruction (ncu's source page). PART narrow (run
# 7): GPU tests, plan.py's narrow measured. PART wide (run 8): the same for plan.py's wide.
# Writes straight to OUT/RUN so partial results survive a timeout.
set -u
O=$1
W=$O/$2
mkdir -p $W
tar xzf .gpu/tap_split.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
if [ "$3" = sweep ]; then
  python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
  for d in .gpu/tap_split/probe/*/; do
    cp -r $d .gpu/tap_split/probe/unnegated
    sed -i '/if (kTapSplit == 2 \&\& i == 3) u = -u;/d' .gpu/tap_split/probe/unnegated/program.cu
    grep -c "u = -u" .gpu/tap_split/probe/unnegated/program.cu > $W/probe_unnegated_left.txt
  done
  python3 -m wino_tvm.batch .gpu/tap_split/probe --record $W/probe.jsonl --checks 2 \
    > $W/probe.log 2>&1
  tail -3 $W/probe.log
  python3 -m wino_tvm.tune measure .gpu/tap_split/tune --log $W/tune.jsonl > $W/tune.log 2>&1
  tail -3 $W/tune.log
elif [ "$3" = wgmma ] || [ "$3" = narrow ] || [ "$3" = wide ]; then
  python3 -m pytest -q -m gpu tests/test_lane.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
  python3 -m wino_tvm.tune measure .gpu/tap_split/$3 --log $W/tune.jsonl > $W/tune.log 2>&1
  tail -3 $W/tune.log
elif [ "$3" = ncu_source ]; then
  P=.gpu/tap_split/ncu_wgmma
  python3 -m wino_tvm.batch $P --record $W/ncu_batch.jsonl --checks 2 > $W/ncu_batch.log 2>&1
  tail -n 3 $W/ncu_batch.log
  for d in $P/*/; do
    n=$W/sass_$(basename $d | grep -o 'tbn[0-9]*-.*' | sed 's/-frag16x8x16-full-vec16-pad16-pb//')
    timeout 120 ncu --clock-control none --section SourceCounters --section WarpStateStats \
      -k regex:wino_lane_forward --launch-count 1 -o $n $d/wino_bench --checks 1 --no-time \
      >> $W/ncu.log 2>&1
    ncu --import $n.ncu-rep --page source --print-source sass --csv > $n.csv 2>> $W/ncu.log
    rm -f $n.ncu-rep && gzip $n.csv
  done
else
  if [ "$3" = epi_ncu ]; then
    python3 -m wino_tvm.tune measure .gpu/tap_split/epi --log $W/epi.jsonl > $W/epi.log 2>&1
    tail -3 $W/epi.log
  fi
  P=.gpu/tap_split/$([ "$3" = epi_ncu ] && echo ncu || echo ncu_wgmma)
  python3 -m wino_tvm.batch $P --record $W/ncu_batch.jsonl --checks 3 > $W/ncu_batch.log 2>&1
  tail -n 3 $W/ncu_batch.log
  for d in $P/*/; do
    n=$W/ncu_$(basename $d | grep -o 'tbn[0-9]*-.*' | sed 's/-frag16x8x16-full-vec16-pad16-pb//')
    timeout 120 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 \
      -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
    ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
    rm -f $n.ncu-rep && gzip ${n}_raw.csv
  done
fi
