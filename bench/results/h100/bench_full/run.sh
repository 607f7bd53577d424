#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT, with the tuned bests of
# tuning_logs/h100.jsonl (new since ../bench_full_96b1b1a/: the lane kernel's int8 y without
# the epilogue rounded in half2, ../int8_y_half/).
# The GPU-marked tests first. Everything under $O/run is packed into one archive at the end.
# Usage: run.sh OUT COMMIT (bench/bench_full_run.sh, the shared steps).
exec bash bench/bench_full_run.sh "$@"
