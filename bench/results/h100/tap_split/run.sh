#!/bin/bash
# The lane kernel's tap split (README.md). Usage: run.sh OUT RUN (run1, run2): GPU tests, the negative control
# of plan.py's probe (KTrans without the negation of U's tap row 3 must fail the check), then
# plan.py's tune measured. Writes straight to OUT/RUN so partial results survive a timeout.
set -u
O=$1
W=$O/$2
mkdir -p $W
tar xzf .gpu/tap_split.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
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
