#!/bin/bash
# The picks and their fastest wgmma configs re-measured with u_async's U staging (README.md).
# Usage: run.sh OUT RUN. GPU tests of the lane kernel, then plan.py's candidates measured by
# the tuner (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" tune_u_async --gpu-tests
