#!/bin/bash
# ncu of the F(2, 3) picks with V in registers (README.md): the a- artifacts of
# ../f23_parts/ run 3 at N=128 14² and 28². Usage: run.sh OUT RUN (bench/ncu_run.sh).
NCU_KERNEL=wino_f23_forward exec bash bench/ncu_run.sh "$1" "$2" f23_rs_ncu \
  n128_14=a-N128_H14_W14_C256_K256-*pb-f23-st4 n128_28=a-N128_H28_W28_C128_K128-*pb-f23-st3
