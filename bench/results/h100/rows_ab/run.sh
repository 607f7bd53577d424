#!/bin/bash
# A/B of A^T in registers (82d3318) against eb9d6ad: the 30 fp16 m=2 full-fusion artifacts of
# bench_full at six workloads, one batch, 3 correctness checks each; then ncu memory tables of
# the 960^2 32/32/64 (U from L2) kernel before and after. Outputs packed into one archive.
set -u
O=$1
W=$O/rows_ab
mkdir -p $W
tar xzf .gpu/rows.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/rows_ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -62 $W/ab.log
for v in eb9d6ad 82d3318; do
  d=.gpu/rows_ab/N1_H960_W960_C64_K64-fp16-fp32-m2-tbm32-tbn32-tbk64-frag16x16x16-full-vec16-pad16-ul2@$v
  ncu --clock-control none --section MemoryWorkloadAnalysis_Tables --section SpeedOfLight \
    --section WarpStateStats -k regex:winograd_full --launch-count 1 --csv --page raw \
    $d/wino_bench --checks 1 --no-time > $W/ncu_960_ul2_$v.csv 2>> $W/ncu.err
done
gzip $W/*.csv
tar czf $O/rows_ab.tar.gz -C $O rows_ab && rm -rf $W
