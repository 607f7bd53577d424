#!/bin/bash
# The tap split's exchange (README.md). Usage: run.sh OUT RUN SET (SET: xo2, a- and x-, run 1;
# se, a- and y-, run 2). A smoke test of two artifacts of the variant, then every artifact of
# .gpu/SET.tar.gz timed in one batch.
set -u
W=$1/$2
S=$3
mkdir -p $W
tar xzf .gpu/$S.tar.gz -C .gpu
P=.gpu/$S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
if [ $S = xo2 ]; then
  SMOKE="x-N1_H960_W960_C64_K64-fp16-fp32-m2-*-ts2 x-N1_H224_W224_C64_K64-fp16-fp16-*-bias_residual_relu"
else
  SMOKE="y-N1_H960_W960_C64_K64-fp16-fp16-m2-*-ts2 y-N128_H28_W28_C128_K128-fp16-fp16-m2-*-ts2"
fi
for c in $SMOKE; do
  d=$(ls -d $P/*/$c | head -1)
  timeout 200 python3 -m wino_tvm.runner $d --checks 1 --timeout 30 >> $W/smoke.log 2>&1
  rc=$?
  echo "smoke $(basename $d): exit $rc" | tee -a $W/smoke.log
  [ $rc = 0 ] || { tail -n 20 $W/smoke.log; exit 1; }
done
mkdir -p .gpu/${S}_all && mv $P/*/* .gpu/${S}_all/
python3 -m wino_tvm.batch .gpu/${S}_all --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
