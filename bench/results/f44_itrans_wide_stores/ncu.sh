#!/bin/bash
# ncu of ITrans in a- and b- of one pair: duration, issue, stalls, occupancy
name=$1
for s in a b; do
  d=.lab/ab/$s-$name
  python3 -m wino_tvm.runner $d --checks 1 --iters 5 --warmup 2 > /dev/null 2>&1 || { echo "runner failed $d"; continue; }
  echo "=== $s-$name"
  ncu --kernel-name regex:itrans --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warp_latency_per_inst_issued.ratio,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum \
    $d/wino_bench --checks 1 --iters 3 --warmup 1 2>&1 | grep -vE "^\s*$" | tail -30
done
