#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT (plus M staged in rounds
# and blocks per SM for ptxas, ../m_rounds_ab/), with the tuned bests of tuning_logs/h100.jsonl
# (int8 picks 16/64/64 ul2, with mr2 lb4 at six C=64 workloads: ../tune_m_rounds/). The
# GPU-marked tests first.
# Everything under $O/run is packed into one archive at the end.
set -u
O=$1
C=$2  # the commit of the benchmark harness
W=$O/run
mkdir -p $W
tar xzf .gpu/bfa.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.bench .gpu/bfa --out $W/bench_full --iters 60 --commit $C > $W/bench.log 2>&1
tail -3 $W/bench.log
# ncu of the 960^2 int8 pick (M in 2 rounds, 4 blocks per SM for ptxas).
v=$(ls .gpu/bfa | grep -E '^N1_H960_W960_C64_K64-int8-int32-m2-.*-mr2-lb4$' | head -1)
n=$W/bench_full/ncu_960_int8_mr2lb4
b=$(python3 -c "import sys; from pathlib import Path; from wino_tvm.runner import compile_program
print(compile_program(Path(sys.argv[1]), 'sm_90'))" .gpu/bfa/$v 2>> $W/ncu.log)
if [ -x "$b" ]; then
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis -k regex:winograd_full --launch-count 1 -o $n \
    $b --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page details --csv > ${n}_details.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_details.csv
fi
tar czf $O/run.tar.gz -C $O run && rm -rf $W
