#!/bin/bash
# ncu of the N=1 224², 448² and 960² fp16 picks, with u_async's U staging (README.md).
# Usage: run.sh OUT RUN. Raw metrics and the per-instruction source page (SASS, stall samples),
# by bench/ncu_run.sh.
bash bench/ncu_run.sh "$1" "$2" start_cost H224='*_H224_*' H448='*_H448_*' H960='*_H960_*'
ls -la $1/$2
