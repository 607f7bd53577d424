#!/bin/bash
# A same-run A/B on the device (bench/results/h100/*/README.md): run.sh OUT RUN SET [SMOKE...].
# .gpu/SET.tar.gz holds one folder per side, each artifact named by its side's prefix (a-, b-,
# ...; bench/ab_plan.py). Each SMOKE glob names one artifact, run once under a timeout; then
# every artifact is timed in one batch into OUT/RUN/batch.jsonl (bench/ab_compare.py reads it).
set -u
source bench/device_set.sh "$@"
shift 3
for c in "$@"; do
  d=$(ls -d $P/*/$c | head -1)
  timeout 200 python3 -m wino_tvm.runner $d --checks 1 --timeout 30 >> $W/smoke.log 2>&1
  rc=$?
  echo "smoke $(basename $d): exit $rc" | tee -a $W/smoke.log
  [ $rc = 0 ] || { tail -n 20 $W/smoke.log; exit 1; }
done
mkdir -p .gpu/${S}_all && mv $P/*/* .gpu/${S}_all/
python3 -m wino_tvm.batch .gpu/${S}_all --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
