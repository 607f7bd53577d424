#!/bin/bash
# Cache hints for y's stores and x's TMA boxes (README.md). Usage: run.sh OUT RUN SET (SET: sh,
# a-, s-, p-). A smoke test of an s- and a p- artifact, then every artifact of .gpu/SET.tar.gz
# timed in one batch.
set -u
W=$1/$2
S=$3
mkdir -p $W
tar xzf .gpu/$S.tar.gz -C .gpu
P=.gpu/$S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
for c in 's-N1_H960_W960_C64_K64-fp16-fp16-m2-*-ts2' 'p-N1_H960_W960_C64_K64-fp16-fp16-m2-*-ts2'; do
  d=$(ls -d $P/*/$c | head -1)
  timeout 200 python3 -m wino_tvm.runner $d --checks 1 --timeout 30 >> $W/smoke.log 2>&1
  rc=$?
  echo "smoke $(basename $d): exit $rc" | tee -a $W/smoke.log
  [ $rc = 0 ] || { tail -n 20 $W/smoke.log; exit 1; }
done
mkdir -p .gpu/${S}_all && mv $P/*/* .gpu/${S}_all/
python3 -m wino_tvm.batch .gpu/${S}_all --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
