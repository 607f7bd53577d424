#!/bin/bash
# U's slice staged with cp.async (README.md). Usage: run.sh OUT RUN SET (SET: uasync for run 1,
# a- and b-; uasync2 for run 2, a-, b-, c-, e-). A smoke test of two b- artifacts under a
# timeout, then every artifact of .gpu/SET.tar.gz timed in one batch.
set -u
W=$1/$2
S=$3
mkdir -p $W
tar xzf .gpu/$S.tar.gz -C .gpu
P=.gpu/$S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
for c in 'b-N1_H960_W960_C64_K64-fp16-fp16-*' 'b-N128_H14_W14_C256_K256-fp16-fp16-*'; do
  d=$(ls -d $P/*/$c | head -1)
  timeout 200 python3 -m wino_tvm.runner $d --checks 1 --timeout 30 >> $W/smoke.log 2>&1
  rc=$?
  echo "smoke $(basename $d): exit $rc" | tee -a $W/smoke.log
  [ $rc = 0 ] || { tail -n 20 $W/smoke.log; exit 1; }
done
mkdir -p .gpu/${S}_all && mv $P/*/* .gpu/${S}_all/
python3 -m wino_tvm.batch .gpu/${S}_all --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
