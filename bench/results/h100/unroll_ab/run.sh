#!/bin/bash
set -u
O=$1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $O/env.txt
python3 -m wino_tvm.batch .gpu/exp --record $O/exp.jsonl --checks 1 --iters 100 2>&1 | tail -40
for d in base_960_32x32x64_ul2 u8_960_32x32x64_ul2; do
  ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --metrics regex:smsp__pcsamp_warps_issue_stalled_.* -k regex:winograd_full --launch-count 1 --csv --page raw .gpu/exp/$d/wino_bench --checks 1 --no-time > $O/ncu_$d.csv 2> $O/ncu_$d.err
done
