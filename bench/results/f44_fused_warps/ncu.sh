#!/bin/bash
# Lab: clocks, pipes and throughputs of the default's kernels and the fused kernel (mode 2).
F="-std=c++17 -O3 -diag-suppress=177 -gencode=arch=compute_90a,code=sm_90a"
M=gpc__cycles_elapsed.avg.per_second,gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__issue_active.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for n in a-1x128x128x512x512 b-1x128x128x512x512 b-1x512x512x256x256 a-1x512x512x256x256; do
  d=.lab/ab/$n; nvcc $F -o $d/bin $d/program.cu || echo BUILD FAIL $n &
done; wait
for n in a-1x128x128x512x512 b-1x128x128x512x512 a-1x512x512x256x256 b-1x512x512x256x256; do
  echo "== $n"
  timeout 120 ncu --clock-control none --kernel-name regex:"wino_f44_(itrans|bgemm|otrans|fused)" --launch-skip 6 --launch-count 3 --metrics $M --csv .lab/ab/$n/bin --checks 1 --warmup 3 --iters 3 > $OUT/$n.csv 2>&1; grep -c Metric $OUT/$n.csv
done
