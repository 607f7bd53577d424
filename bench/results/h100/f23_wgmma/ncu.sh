#!/bin/bash
# ncu of f23 artifacts on the device: OUT RUN NAME=GLOB... (.gpu/f23.tar.gz as for run.sh).
# Each GLOB's artifact is profiled (--set full, one launch of wino_f23_forward) into
# OUT/RUN/ncu_NAME_raw.csv.gz and ncu_NAME_sass.csv.gz; OUT/RUN is packed into OUT/RUN.tar.gz.
set -u
OUT_DIR=$1 RUN_NAME=$2
source bench/device_set.sh "$1" "$2" f23
shift 2
python3 -m wino_tvm.batch $P/f23 --record $W/batch.jsonl --checks 2 > $W/batch.log 2>&1
tail -n 4 $W/batch.log | cut -c1-150
for pair in "$@"; do
  d=$(ls -d $P/f23/${pair#*=} | head -1)
  n=$W/ncu_${pair%%=*}
  timeout 180 ncu --clock-control none --set full --import-source yes -k regex:wino_f23_forward \
    --launch-count 1 -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
  ncu --import $n.ncu-rep --page source --csv --print-source sass > ${n}_sass.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_raw.csv ${n}_sass.csv
done
tar czf "$OUT_DIR/$RUN_NAME.tar.gz" -C "$OUT_DIR" "$RUN_NAME" && rm -rf "$W"
