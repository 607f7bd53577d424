#!/bin/bash
# The final benchmark: python -m wino_tvm.suites bench_full at COMMIT, with the tuned bests of
# tuning_logs/h100.jsonl (new since ../bench_full_a860982/: the wgmma lane kernels stage
# interior tile groups' input without bounds tests, and their records from
# ../stage_fast/run5). The GPU-marked tests first. Everything under $O/run is packed into one
# archive at the end.
# Usage: run.sh OUT COMMIT (bench/bench_full_run.sh, the shared steps).
exec bash bench/bench_full_run.sh "$@"
