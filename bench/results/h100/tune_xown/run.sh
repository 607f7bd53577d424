#!/bin/bash
# The tap-split picks and their exchange_own twins measured by the tuner (README.md).
# Usage: run.sh OUT RUN. GPU tests of the lane kernel, then plan.py's candidates measured by
# the tuner (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" tune_xown --gpu-tests
