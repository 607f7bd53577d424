#!/bin/bash
# A/B of warp groups sharing U in persistent full kernels (1d0ef00; python -m wino_tvm.suites
# groups): 48 artifacts, one batch, 3 correctness checks each; ncu of the 960^2 fp16-accumulator
# kernels 32/64 G1 (the tuned best) and 16/64 G1/G2. Outputs packed into one archive.
set -u
O=$1
W=$O/groups_ab
mkdir -p $W
tar xzf .gpu/groups.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m wino_tvm.batch .gpu/groups --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -60 $W/ab.log
P=.gpu/groups/N1_H960_W960_C64_K64-fp16-fp16-m2
for v in tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16-pb \
         tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-pb \
         tbm16-tbn64-tbk64-frag16x16x16-full-vec16-pad16-pb-g2; do
  ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis_Tables --section Occupancy -k regex:winograd_full \
    --launch-count 1 --csv --page raw $P-$v/wino_bench --checks 1 --no-time \
    > $W/ncu_960_fp16acc_${v%%-frag*}_${v##*-pad16-}.csv 2>> $W/ncu.err
done
gzip $W/*.csv
tar czf $O/groups_ab.tar.gz -C $O groups_ab && rm -rf $W
