#!/bin/bash
# Every stacked config of the space for the fp32-accumulator C = 64 cases, measured by the tuner
# (README.md). Usage: run.sh OUT RUN (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" tune_stack_fp32
