#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT, with the tuned bests of
# tuning_logs/h100.jsonl (new since ../bench_full_751a620/: the lane kernel's chunk loop rolled
# beyond 8 chunks, and the C = 256 picks of ../lane_chunk_loop/). The GPU-marked tests first.
# Everything under $O/run is packed into one archive at the end.
# Usage: run.sh OUT COMMIT (bench/bench_full_run.sh, the shared steps).
exec bash bench/bench_full_run.sh "$@"
