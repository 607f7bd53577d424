#!/bin/bash
# Cache hints for y's stores and x's TMA boxes (README.md). Usage: run.sh OUT RUN SET (SET: sh,
# a-, s-, p-): bench/ab_run.sh with a smoke test of an s- and a p- artifact.
exec bash bench/ab_run.sh "$1" "$2" "$3" 's-N1_H960_W960_C64_K64-fp16-fp16-m2-*-ts2' 'p-N1_H960_W960_C64_K64-fp16-fp16-m2-*-ts2'
