#!/bin/bash
# Artifacts built at a17d48b (python -m wino_tvm.suites full|bench_full), tests at 9dd96fd: the
# GPU-marked tests; two same-run A/Bs (OTrans unroll 8/full by hand against 4, ../otrans_unroll_ab/;
# fusion none's fp32 ITrans, ../itrans_fp16_none_ab/); the full-fusion suite (3 checks each);
# then the full-fusion benchmark against cuDNN.
set -u
O=$1
tar xzf .gpu/run.tar.gz -C .gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $O/env.txt
python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_harness.py tests/test_library.py \
  tests/test_bench_report.py > $O/gpu_tests.log 2>&1
tail -3 $O/gpu_tests.log
python3 -m wino_tvm.batch .gpu/otx2 --record $O/otrans_exp2.jsonl --checks 2 > $O/otx2.log 2>&1
tail -37 $O/otx2.log
python3 -m wino_tvm.batch .gpu/none_ab --record $O/none_ab.jsonl --checks 3 > $O/none_ab.log 2>&1
tail -5 $O/none_ab.log
python3 -m wino_tvm.batch .gpu/full --record $O/full.jsonl --checks 3 > $O/full.log 2>&1
tail -18 $O/full.log
python3 -m wino_tvm.bench .gpu/bench_full --out $O/bench_full --iters 60 --commit a17d48b \
  > $O/bench.log 2>&1
tail -3 $O/bench.log
# The benchmark's report did not come back from this run (too many files under $OUT); the
# benchmark was repeated at eb9d6ad (bench_full/run.sh).
