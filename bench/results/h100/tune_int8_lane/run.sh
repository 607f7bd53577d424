#!/bin/bash
# int8 on the lane kernel's fp16 tensor cores, measured by the tuner, after the GPU tests
# (README.md). Usage: run.sh OUT RUN (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" tune_int8_lane --gpu-tests
