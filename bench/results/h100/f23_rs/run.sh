#!/bin/bash
# The F(2, 3) kernel with V in wgmma's A registers (b-, c-) against the template (a-), one batch
# (README.md). Usage: run.sh OUT RUN (bench/ab_run.sh; smoke: a persistent and a split b- and
# c-; run 1 had a- and b- only).
exec bash bench/ab_run.sh "$1" "$2" f23_rs 'b-N128_H28_W28_C128_K128-*pb-f23-st3' \
  'b-N32_H7_W7_C512_K512-*cs2' 'c-N128_H28_W28_C128_K128-*pb-f23-st3' 'c-N32_H7_W7_C512_K512-*cs2'
