#!/bin/bash
# U staged by chunks (README.md). Usage: run.sh OUT RUN SET (SET: uc2, a- and p-):
# bench/ab_run.sh with a smoke test of two p- artifacts (a wrong protocol hangs).
exec bash bench/ab_run.sh "$1" "$2" "$3" 'p-N1_H960_W960_C64_K64-fp16-fp16-*' 'p-N3_H7_W9_C64_K64-fp16-fp32-*'
