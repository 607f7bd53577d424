#!/bin/bash
# A/B of the L2 prefetch of the next tile block (90b2e61) against 9f93dc2: the 28 bench_full
# cases with a persistent full kernel (build_ab.py), one batch, 3 correctness checks each; ncu
# of the 960^2 fp16-accumulator 32/64 kernel with the prefetch.
set -u
O=$1
W=$O/prefetch_ab
mkdir -p $W
tar xzf .gpu/pf_ab.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/pf_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -60 $W/ab.log
d=".gpu/pf_ab/N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16-pb@90b2e61"
ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
  --section MemoryWorkloadAnalysis_Tables --section Occupancy -k regex:winograd_full \
  --launch-count 1 --csv --page raw "$d/wino_bench" --checks 1 --no-time \
  > $W/ncu_960_fp16acc_pb_prefetch.csv 2> $W/ncu.err
gzip $W/*.csv
tar czf $O/prefetch_ab.tar.gz -C $O prefetch_ab && rm -rf $W
