#!/bin/bash
# The full-fusion benchmark on the device (bench/results/h100/bench_full*/README.md): OUT COMMIT.
# .gpu/bf.tar.gz holds `python -m wino_tvm.suites bench_full` built at COMMIT. The GPU-marked
# tests first, then `python -m wino_tvm.bench`; everything under OUT/run is packed into
# OUT/run.tar.gz at the end (one file back from the device).
set -u
O=$1
C=$2  # the commit of the benchmark harness
source bench/device_set.sh "$O" run bf
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py tests/test_lane.py tests/test_f23.py > $W/gpu_tests.log 2>&1
tail -3 $W/gpu_tests.log
python3 -m wino_tvm.bench $P --out $W/bench_full --iters 60 --commit $C > $W/bench.log 2>&1
tail -3 $W/bench.log
tar czf $O/run.tar.gz -C $O run && rm -rf $W
