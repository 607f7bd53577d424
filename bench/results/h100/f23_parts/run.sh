#!/bin/bash
# What the F(2, 3) kernel's copies cost (README.md). Usage: run.sh OUT RUN. A smoke run of one
# a- artifact, then a- (the kernel), b- (no U copies) and c- (no copies) timed in one batch.
exec bash bench/ab_run.sh "$1" "$2" f23_parts 'a-N128_H14_W14_C256_K256-*'
