#!/bin/bash
# A tuning measurement on the device (bench/results/h100/tune_*/README.md):
# tune_run.sh OUT RUN SET [--gpu-tests]. .gpu/SET.tar.gz holds a tune folder's plan.py build;
# with --gpu-tests the GPU tests of the lane and F(2, 3) kernels, the harness and the library
# run first.
# Records into OUT/RUN/tune.jsonl; the best per case is printed.
set -u
source bench/device_set.sh "$@"
if [ "${4:-}" = --gpu-tests ]; then
  python3 -m pytest -q -m gpu tests/test_lane.py tests/test_f23.py tests/test_harness.py \
    tests/test_library.py > $W/gpu_tests.log 2>&1
  tail -2 $W/gpu_tests.log
fi
python3 -m wino_tvm.tune measure $P --log $W/tune.jsonl > $W/tune.log 2>&1
tail -n 40 $W/tune.log | grep best
