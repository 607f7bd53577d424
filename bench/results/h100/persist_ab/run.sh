#!/bin/bash
# A/B of persistent blocks (84db6c1; python -m wino_tvm.suites persist): 37 config pairs with and
# without persist on the C=K=64 benchmark workloads, one batch, 3 correctness checks each; the
# GPU-marked tests (the harness's persistent launch); ncu of the 960^2 fp16-accumulator 32/64/64
# kernel with and without. Outputs packed into one archive.
set -u
O=$1
W=$O/persist_ab
mkdir -p $W
tar xzf .gpu/persist.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.batch .gpu/persist --record $W/ab.jsonl --checks 3 > $W/ab.log 2>&1
tail -80 $W/ab.log
for v in "" "-pb"; do
  d=.gpu/persist/N1_H960_W960_C64_K64-fp16-fp16-m2-tbm32-tbn64-tbk64-frag16x16x16-full-vec16-pad16$v
  ncu --clock-control none --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis_Tables --section Occupancy -k regex:winograd_full \
    --launch-count 1 --csv --page raw $d/wino_bench --checks 1 --no-time \
    > $W/ncu_960_fp16acc${v:-_base}.csv 2>> $W/ncu.err
done
gzip $W/*.csv
tar czf $O/persist_ab.tar.gz -C $O persist_ab && rm -rf $W
