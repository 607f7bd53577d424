#!/bin/bash
# U's slice multicast in clusters of 2 (README.md). Usage: run.sh OUT RUN SET (SET: umc, a-
# and m-; umc2: a-, m-, n-, k-). bench/ab_run.sh with a smoke test of two m- artifacts (a wrong
# protocol hangs), then the grid the harness chose for a cluster launch (ncu).
set -u
bash bench/ab_run.sh "$1" "$2" "$3" 'm-N1_H960_W960_C64_K64-fp16-fp16-*' 'm-N3_H7_W9_C64_K64-fp16-fp32-*' || exit 1
W=$1/$2
S=$3
# The grid the harness chose for a cluster launch (by cudaOccupancyMaxActiveClusters).
d=$(ls -d .gpu/${S}_all/m-N1_H448_W448_C64_K64-fp16-fp16-* | head -1)
timeout 120 ncu --metrics launch__grid_size,launch__cluster_dim_x,gpu__time_duration.sum \
  -k regex:wino_lane_forward --launch-count 1 $d/wino_bench --checks 1 --no-time \
  > $W/ncu_grid.log 2>&1
grep -E "launch__|gpu__time" $W/ncu_grid.log
