#!/bin/bash
# A/B of make_variants.py's variants (README.md): one batch, 3 correctness checks each; ncu
# stall samples per SASS instruction of the 960^2 32/64 itilefill and ihandfill kernels.
set -u
O=$1
W=$O/itile_ab
mkdir -p $W
tar xzf .gpu/itile.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/ab --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -32 $W/ab.log
for v in itilefill ihandfill; do
  d=.gpu/ab/${v}_960_a16_32x64
  ncu --clock-control none --section SourceCounters --section WarpStateStats -k regex:winograd_full \
    --launch-count 1 -o $W/src_960_$v $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $W/src_960_$v.ncu-rep --page source --csv --print-source sass \
    > $W/src_960_${v}_sass.csv 2>> $W/ncu.log
done
gzip $W/*.csv
tar czf $O/itile_ab.tar.gz -C $O itile_ab && rm -rf $W
