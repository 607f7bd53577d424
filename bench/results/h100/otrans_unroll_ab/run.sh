#!/bin/bash
# Exploration: `#pragma unroll 2|4` put by hand on the full kernel's OTrans loop (@ou2/@ou4)
# against the generated source (@base), at 88abde7, same run; then ncu of the 960^2
# fp16-accumulator kernel with and without the epilogue (base).
set -u
O=$1
tar xzf .gpu/otx_ab.tgz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $O/env.txt
python3 -m wino_tvm.batch .gpu/otx_ab --record $O/exp.jsonl --checks 2 2>&1 | tail -60
for e in "" "-bias_residual_relu"; do
  d=.gpu/otx_ab/N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16$e@base
  ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --section MemoryWorkloadAnalysis -k regex:winograd_full --launch-count 1 \
    $d/wino_bench --checks 1 --no-time > $O/ncu_960_fp16acc$e.txt 2> $O/ncu.err
done
