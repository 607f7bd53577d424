#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT, with the tuned bests of
# tuning_logs/h100.jsonl (new since ../bench_full_bf3355c/: the F(2, 3) kernel's C split at
# N=32 7² and persistent blocks at 28² and N=128 14², ../tune_csplit/run1, ../tune_persist/run1).
# The GPU-marked tests first. Everything under $O/run is packed into one archive at the end.
# Usage: run.sh OUT COMMIT (bench/bench_full_run.sh, the shared steps).
exec bash bench/bench_full_run.sh "$@"
