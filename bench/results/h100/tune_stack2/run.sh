#!/bin/bash
# sweep_stack/'s six fastest stacked configs on the other fp16-accumulator C = 64 cases,
# measured by the tuner (README.md). Usage: run.sh OUT RUN (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" tune_stack2
