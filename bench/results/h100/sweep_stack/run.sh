#!/bin/bash
# Every stacked lane config of the space at N=1 224²-960², fp16 accumulators, measured by the
# tuner (README.md). Usage: run.sh OUT RUN (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" sweep_stack
