#!/bin/bash
# The C = 64 picks, their TMA neighbours and the stacked twins of their 4-group lane configs,
# measured by the tuner, after the lane kernel's GPU tests (README.md). Usage: run.sh OUT RUN
# (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" tune_stack --gpu-tests
