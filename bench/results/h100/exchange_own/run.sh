#!/bin/bash
# The tap split's exchange (README.md). Usage: run.sh OUT RUN SET (SET: xo2, a- and x-, run 1;
# se, a- and y-, run 2): bench/ab_run.sh with a smoke test of two artifacts of the variant.
if [ "$3" = xo2 ]; then
  exec bash bench/ab_run.sh "$1" "$2" "$3" 'x-N1_H960_W960_C64_K64-fp16-fp32-m2-*-ts2' \
    'x-N1_H224_W224_C64_K64-fp16-fp16-*-bias_residual_relu'
fi
exec bash bench/ab_run.sh "$1" "$2" "$3" 'y-N1_H960_W960_C64_K64-fp16-fp16-m2-*-ts2' \
  'y-N128_H28_W28_C128_K128-fp16-fp16-m2-*-ts2'
