#!/bin/bash
# Run 3 (README.md): the template (a-, as in ../f23_parts/ run 3) against d.patch (d-: the next
# filter row's patch loads issued before the wgmma wait), one batch. Usage: run3.sh OUT RUN.
exec bash bench/ab_run.sh "$1" "$2" f23_pf 'd-N128_H28_W28_C128_K128-*pb-f23-st3' \
  'd-N32_H7_W7_C512_K512-*cs2'
