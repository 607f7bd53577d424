#!/bin/bash
# First device run of the generated lane kernel: `batch` over plan.py's artifacts (built at the
# commit in README.md) and the hand kernel of ../lane_layout/ spliced into the generated 224²
# and 960² lane artifacts' harnesses; then ncu of the 960² template kernel.
set -u
O=$1
W=$O/run
mkdir -p $W
tar xzf .gpu/lane_template.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/lane_template --record $W/ab.jsonl --checks 3 > $W/batch.log 2>&1
tail -22 $W/batch.log
d=$(ls -d .gpu/lane_template/N1_H960_*fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-g4-ks2)
n=$W/ncu_template_960
timeout 150 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 -o $n \
  $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
ncu --import $n.ncu-rep --page details --csv > ${n}_details.csv 2>> $W/ncu.log
ncu --import $n.ncu-rep --page raw --csv > ${n}_raw.csv 2>> $W/ncu.log
rm -f $n.ncu-rep && gzip ${n}_details.csv ${n}_raw.csv
tar czf $O/run.tar.gz -C $O run && rm -rf $W
