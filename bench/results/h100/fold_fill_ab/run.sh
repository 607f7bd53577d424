#!/bin/bash
# A/B of make_variants.py's fold and fill edits (README.md): one batch, 3 correctness checks;
# ncu stall samples per SASS instruction of the 960^2 16/64 2-group epilogue kernel.
set -u
O=$1
W=$O/fold_fill_ab
mkdir -p $W
tar xzf .gpu/exp3.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/exp3 --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -20 $W/ab.log
d=.gpu/exp3/base_960_a16_16x64g2ep
ncu --clock-control none --section SourceCounters --section WarpStateStats -k regex:winograd_full \
  --launch-count 1 -o $W/src_960_a16_16x64g2ep $d/wino_bench --checks 1 --no-time > $W/ncu.log 2>&1
ncu --import $W/src_960_a16_16x64g2ep.ncu-rep --page source --csv --print-source sass \
  > $W/src_960_a16_16x64g2ep_sass.csv 2>> $W/ncu.log
gzip $W/*.csv
tar czf $O/fold_fill_ab.tar.gz -C $O fold_fill_ab && rm -rf $W
