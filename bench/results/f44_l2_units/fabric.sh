#!/bin/bash
nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o .lab/l2/fabric .lab/l2/fabric.cu && .lab/l2/fabric
timeout 200 ncu --clock-control none $NCU_EXTRA --metrics breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum --csv .lab/l2/fabric > $OUT/fabric$NCU_TAG.csv 2>&1; grep -c Metric $OUT/fabric$NCU_TAG.csv
