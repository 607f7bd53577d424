#!/bin/bash
# A/B of the M row pad + ITrans unroll: before (f04f5cc) vs after (934c47c), same run, 3 checks
# each; then ncu memory tables of the after build of the 960^2 32/32/64 (U from L2) kernel.
set -u
O=$1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $O/env.txt
python3 -m wino_tvm.batch .gpu/ab --record $O/ab.jsonl --checks 3 2>&1 | tail -32
d=.gpu/ab/after/N1_H960_W960_C64_K64_fp16-fp32-m2-tbm32-tbn32-tbk64-frag16x16x16-full-vec16-pad16-ul2
ncu --clock-control none --section MemoryWorkloadAnalysis_Tables --section SpeedOfLight \
  --section WarpStateStats --section Occupancy -k regex:winograd_full --launch-count 1 --csv \
  --page raw $d/wino_bench --checks 1 --no-time > $O/ncu_after_960_ul2.csv 2> $O/ncu.err
