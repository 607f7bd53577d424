#!/bin/bash
# ncu of the F(2, 3) picks after ../tune_sk/ run 2 (README.md): OUT RUN. .gpu/sk_ncu.tar.gz holds
# ../sk_fixup/ run 3's e- artifacts (c8f56c0) of N=128 14² and 28² (sk-st4) and 7² (pb-st3);
# 14² and 7² are profiled (28² only timed: 8 files come back from the device).
NCU_KERNEL=wino_f23_forward exec bash bench/ncu_run.sh "$1" "$2" sk_ncu \
  sk14='*N128_H14*-sk-st4' pb7='*N128_H7*-pb-f23-st3'
