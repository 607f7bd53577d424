#!/bin/bash
# Lab: which L2 unit bounds each f44 kernel (ncu's breakdown of lts__throughput), defaults.
F="-std=c++17 -O3 -diag-suppress=177 -gencode=arch=compute_90a,code=sm_90a"
for n in a-1x128x128x512x512 a-1x512x512x256x256; do nvcc $F -o .lab/ab/$n/bin .lab/ab/$n/program.cu & done; wait
for n in a-1x128x128x512x512 a-1x512x512x256x256; do
  timeout 200 ncu --clock-control none --kernel-name regex:"wino_f44_(itrans|bgemm|otrans)" --launch-skip 6 --launch-count 3 \
    --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    --csv .lab/ab/$n/bin --checks 1 --warmup 3 --iters 3 > $OUT/l2_$n.csv 2>&1; grep -c Metric $OUT/l2_$n.csv
done
