#!/bin/bash
# The F(2, 3) kernel's time against its chunks per block (README.md), by the tuner's measure.
# Usage: run.sh OUT RUN (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" f23_overhead
