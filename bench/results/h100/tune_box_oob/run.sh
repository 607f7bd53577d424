#!/bin/bash
# The C = 64 picks and their wgmma neighbours with and without TMA, measured by the tuner at
# 665490b (README.md). Usage: run.sh OUT RUN (bench/tune_run.sh).
exec bash bench/tune_run.sh "$1" "$2" tune_box_oob
