#!/bin/bash
# ncu profiles on the device (bench/results/h100/*_ncu*/, start_cost/):
# ncu_run.sh OUT RUN SET NAME=GLOB.... .gpu/SET.tar.gz holds the artifacts; they are timed once
# in a batch, then the artifact each GLOB names is profiled (ncu --set full, one launch of the
# lane forward kernel) into OUT/RUN/ncu_NAME_raw.csv.gz (raw metrics) and ncu_NAME_sass.csv.gz
# (the source page: SASS with its stall samples). NCU_KERNEL: the kernel's name (default the lane
# forward kernel; f23_wgmma/ profiles wino_f23_forward).
set -u
K=${NCU_KERNEL:-wino_lane_forward}
source bench/device_set.sh "$@"
shift 3
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 2 > $W/batch.log 2>&1
tail -n 3 $W/batch.log | cut -c1-150
for pair in "$@"; do
  d=$(ls -d $P/${pair#*=} | head -1)
  n=$W/ncu_${pair%%=*}
  timeout 180 ncu --clock-control none --set full --import-source yes -k regex:$K \
    --launch-count 1 -o $n $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
  ncu --import $n.ncu-rep --page source --csv --print-source sass > ${n}_sass.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_raw.csv ${n}_sass.csv
done
