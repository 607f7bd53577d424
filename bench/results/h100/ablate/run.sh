#!/bin/bash
# What each part of the lane picks costs (README.md). Usage: run.sh OUT RUN. Makes the
# ablations of plan.py's a0-* artifacts by editing copies of program.cu (variants.patch's
# kAblate): a1 no input transform, a2 no MMA, a3 no input copies, a5 neither transform nor
# copies. Their results are wrong by design; all are timed by batch in one run.
# Writes straight to OUT/RUN so partial results survive a timeout.
set -u
O=$1
W=$O/$2
mkdir -p $W
T=ablate; VARIANTS="1 2 3 5"
[ "${3:-}" = copies ] && T=ablate2 && VARIANTS="3 4 6"
tar xzf .gpu/$T.tar.gz -C .gpu
P=.gpu/$T
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
for d in $P/a0-*/; do
  rest=$(basename $d); rest=${rest#a0-}
  for v in $VARIANTS; do
    cp -r $d $P/a$v-$rest
    sed -i "s/constexpr int kAblate = 0;/constexpr int kAblate = $v;/" $P/a$v-$rest/program.cu
  done
done
grep -L "kAblate = 0;" $P/*/program.cu | wc -l > $W/variants.txt
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 1 > $W/batch.log 2>&1
tail -n 72 $W/batch.log | cut -c1-150
