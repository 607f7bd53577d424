#!/bin/bash
# U's slice staged with cp.async (README.md). Usage: run.sh OUT RUN SET (SET: uasync for run 1,
# a- and b-; uasync2 for run 2, a-, b-, c-, e-): bench/ab_run.sh with a smoke test of two b-
# artifacts.
exec bash bench/ab_run.sh "$1" "$2" "$3" 'b-N1_H960_W960_C64_K64-fp16-fp16-*' 'b-N128_H14_W14_C256_K256-fp16-fp16-*'
