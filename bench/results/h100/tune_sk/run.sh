#!/bin/bash
# The F(2, 3) kernel's stream-K schedule measured by the tuner beside the picks, after the GPU
# tests (README.md). Usage: run.sh OUT RUN (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" tune_sk --gpu-tests
