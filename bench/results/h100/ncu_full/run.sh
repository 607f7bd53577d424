#!/bin/bash
# ncu of the full-fusion kernel: per artifact, time it (runner), then profile one forward.
set -u
OUTD=$1
for d in full_224_m4 full_224_m2 full_960_m2 full_960_m4; do
  echo "== $d"
  python3 -m wino_tvm.runner .gpu/ncu/$d --checks 1 > $OUTD/$d.time.json 2> $OUTD/$d.time.log
  tail -1 $OUTD/$d.time.json
  nvcc -std=c++17 -O3 -arch=sm_90 -Xptxas -v -o .gpu/ncu/$d/prof .gpu/ncu/$d/program.cu 2>&1 | grep -A2 winograd_full | head -4
  ncu --clock-control none --set full -k regex:winograd_full --launch-count 1 --csv --page details \
    .gpu/ncu/$d/prof --checks 1 --no-time > $OUTD/$d.ncu.csv 2> $OUTD/$d.ncu.err
  ncu --clock-control none --section WarpStateStats --section SourceCounters -k regex:winograd_full --launch-count 1 --csv --page raw \
    .gpu/ncu/$d/prof --checks 1 --no-time > $OUTD/$d.raw.csv 2>> $OUTD/$d.ncu.err
  grep -E '"(Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L1/TEX Hit Rate|L2 Hit Rate|Block Limit Shared Mem|Block Limit Registers|Warp Cycles Per Issued Instruction|Issue Slots Busy)"' $OUTD/$d.ncu.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
done
