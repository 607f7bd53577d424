#!/bin/bash
set -u
O=$1
for d in base_960_32x32x64_ul2 base_960_32x32x32 u8ot_960_32x32x32; do
  python3 -m wino_tvm.runner .gpu/exp/$d --checks 1 --no-time > /dev/null 2>&1
  ncu --clock-control none --section MemoryWorkloadAnalysis_Tables --section SourceCounters --section SpeedOfLight -k regex:winograd_full --launch-count 1 --csv --page raw .gpu/exp/$d/wino_bench --checks 1 --no-time > $O/mem_$d.csv 2> $O/mem_$d.err
  ncu --clock-control none --section MemoryWorkloadAnalysis_Tables --section SourceCounters -k regex:winograd_full --launch-count 1 --page details --print-details all .gpu/exp/$d/wino_bench --checks 1 --no-time > $O/memdet_$d.txt 2>&1
done
