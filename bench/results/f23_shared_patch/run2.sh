#!/bin/bash
# device: f23 GPU tests, sanitize of the f23 cases, the A/B repeat, the VGG/ResNet compute sweep
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( time timeout 200 env PYTHONPATH=$PWD python3 -m pytest -m gpu --no-skips -q -p no:cacheprovider tests/kernels/f23 ) > $OUT/gpu_tests.log 2>&1; tail -3 $OUT/gpu_tests.log
timeout 150 python3 -m wino_tvm.bench.ab .lab/ab --out $OUT/ab --jobs 16 > $OUT/ab.log 2>&1; grep -E "µs|over|correct:" $OUT/ab.log | tail -20
timeout 150 python3 -m wino_tvm.bench.sanitize .lab/san --out $OUT/san > $OUT/san.log 2>&1; echo san rc $?; tail -4 $OUT/san.log
