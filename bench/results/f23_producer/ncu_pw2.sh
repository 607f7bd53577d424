#!/bin/bash
M=smsp__inst_executed.sum,smsp__cycles_active.avg
for r in barrier branch_resolving dispatch_stall drain imc_miss lg_throttle long_scoreboard math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected short_scoreboard sleeping tex_throttle wait; do
  M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
for s in a b; do
  d=.lab/ab5/$s-$1
  python3 -m wino_tvm.runner $d --checks 1 --iters 3 --warmup 1 > /dev/null 2>&1 || { echo "runner failed $d"; continue; }
  echo "=== $s-$1"
  timeout 120 ncu --kernel-name regex:forward --launch-skip 1 --launch-count 1 --metrics $M \
    $d/wino_bench --checks 1 --iters 2 --warmup 0 2>&1 | grep -E "smsp__" | awk '{print $1, $NF}'
done
