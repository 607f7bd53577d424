#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT, with the tuned bests of
# tuning_logs/h100.jsonl (new since ../bench_full_514c02c/: the int8-y lane picks at C = 64
# tuned with an int8 y, ../tune_int8_y/; a GPU test of the new 448²-960² pick's shape).
# The GPU-marked tests first. Everything under $O/run is packed into one archive at the end.
# Usage: run.sh OUT COMMIT (bench/bench_full_run.sh, the shared steps).
exec bash bench/bench_full_run.sh "$@"
