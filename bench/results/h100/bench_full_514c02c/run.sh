#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT, with the tuned bests of
# tuning_logs/h100.jsonl (new since ../bench_full_836729c/: the F(2, 3) kernel's y in whole
# sectors, ../f23_sectors/, and its fp16 picks tuned again, ../tune_sectors/).
# The GPU-marked tests first. Everything under $O/run is packed into one archive at the end.
# Usage: run.sh OUT COMMIT (bench/bench_full_run.sh, the shared steps).
exec bash bench/bench_full_run.sh "$@"
