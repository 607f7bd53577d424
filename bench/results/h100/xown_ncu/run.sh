#!/bin/bash
# ncu of the 448² fp32 pick with and without exchange_own (README.md). Usage: run.sh OUT RUN.
# Raw metrics and the source page (SASS, stall samples) of each (bench/ncu_run.sh), packed
# into one archive.
bash bench/ncu_run.sh "$1" "$2" xown_ncu xown='*-xown-*' patch='*-tma-g4-ts2'
tar czf $1/$2.tar.gz -C $1 $2 && rm -rf $1/$2
