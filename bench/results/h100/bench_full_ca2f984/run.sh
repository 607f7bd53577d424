#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT, with the tuned bests of
# tuning_logs/h100.jsonl (new since ../bench_full_bd00da0/: the C = 128 picks of
# ../tune_one_chunk/ and ../tune_persist128/, persistent fp16 16/32/128 and int8 16/64/128).
# The GPU-marked tests first; then ncu of the N=128 28² fp16 pick (persistent, one block per
# SM) and of the N=128 14² int8 16/64/256 kernel that lost 0.58x in ../tune_one_chunk/.
# Everything under $O/run is packed into one archive at the end.
set -u
O=$1
C=$2  # the commit of the benchmark harness
W=$O/run
mkdir -p $W
tar xzf .gpu/bfc.tar.gz -C .gpu
tar xzf .gpu/toc.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.bench .gpu/bfc --out $W/bench_full --iters 60 --commit $C > $W/bench.log 2>&1
tail -3 $W/bench.log

profile() {  # artifact folder, report name: ncu of its full kernel, details page as csv.gz
  local n=$W/bench_full/$2 b
  b=$(python3 -c "import sys; from pathlib import Path; from wino_tvm.runner import compile_program
print(compile_program(Path(sys.argv[1]), 'sm_90'))" $1 2>> $W/ncu.log)
  [ -x "$b" ] || return
  timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section SchedulerStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis -k regex:winograd_full --launch-count 1 -o $n \
    $b --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $n.ncu-rep --page details --csv > ${n}_details.csv 2>> $W/ncu.log
  rm -f $n.ncu-rep && gzip ${n}_details.csv
}
profile .gpu/bfc/N128_H28_W28_C128_K128-fp16-fp32-m2-tbm16-tbn32-tbk128-frag16x16x16-full-vec16-pad16-pb-oc2 ncu_n128_28_fp32acc_pb
profile .gpu/toc/N128_H14_W14_C256_K256-int8-int32-m2-tbm16-tbn64-tbk256-frag16x16x16-full-vec16-pad16-ul2 ncu_n128_14_int8_tbk256
tar czf $O/run.tar.gz -C $O run && rm -rf $W
