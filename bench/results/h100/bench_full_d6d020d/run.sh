#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT, with the tuned bests of
# tuning_logs/h100.jsonl (new since ../bench_full_c3b4ad8/: the stacked configs without the
# tap split, ../sweep_stack/run1 and ../tune_stack2/run1).
# The GPU-marked tests first. Everything under $O/run is packed into one archive at the end.
# Usage: run.sh OUT COMMIT (bench/bench_full_run.sh, the shared steps).
exec bash bench/bench_full_run.sh "$@"
