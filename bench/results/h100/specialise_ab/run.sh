#!/bin/bash
# A/B of warp specialisation (+ int8 4-byte loads): before (246284e) vs after, same run; then
# the full-fusion suite (with and without epilogue) with 3 correctness checks each; then ncu.
set -u
O=$1
mkdir -p $O/ncu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $O/env.txt
python3 -m wino_tvm.batch .gpu/ab2 --record $O/ab.jsonl --checks 3 2>&1 | tail -16
python3 -m wino_tvm.batch .gpu/full --record $O/full.jsonl --checks 3 2>&1 | tail -10
for d in fp16_m2_960_32x32x32 fp16_m4_960_32x32x32; do
  ncu --clock-control none --section SpeedOfLight --section InstructionStats --section Occupancy --section LaunchStats --section WarpStateStats -k regex:winograd_full --launch-count 1 --csv --page details .gpu/ab2/after/$d/wino_bench --checks 1 --no-time > $O/ncu/$d.csv 2> $O/ncu/$d.err
  grep -E '"(Duration|Executed Instructions|Registers Per Thread|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued Instruction)"' $O/ncu/$d.csv | awk -F'","' '{print "'$d'", $(NF-2), $(NF-1), $NF}'
done
