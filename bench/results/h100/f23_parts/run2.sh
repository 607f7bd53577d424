#!/bin/bash
# Run 2 (README.md): a- (the tree) and b- (u5.patch) timed in one batch. Usage: run2.sh OUT RUN.
exec bash bench/ab_run.sh "$1" "$2" f23_u5 'b-N128_H14_W14_C256_K256-*'
