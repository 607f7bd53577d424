#!/bin/bash
# build a-/b- artifacts: a = default, b = wide_stores
set -e
source .venv/bin/activate
R=.lab/ab
b() { # name shape knobs... [epi]
  local name=$1 shape=$2 knobs=$3 epi=$4
  local sets=""; for k in $knobs; do sets="$sets --set $k"; done
  local e=""; [ -n "$epi" ] && e="--epilogue $epi"
  python -m wino_tvm.build --family f44 --m 4 --shape $shape $sets --set wide_stores=0 $e --no-run --out $R/a-$name >/dev/null &
  python -m wino_tvm.build --family f44 --m 4 --shape $shape $sets --set wide_stores=1 $e --no-run --out $R/b-$name >/dev/null
  wait
}
BIG="block_m=128 block_n=256 persist=1 stages=4"
SMALL="block_m=64 block_n=256 persist=1 stages=5"
b s128x512 1,128,128,512,512 "$BIG"
b s256x256 1,256,256,256,256 "$BIG"
b s256x512 1,256,256,512,512 "$BIG"
b s512x256 1,512,512,256,256 "$BIG"
b s512x128 1,512,512,128,128 "block_m=128 block_n=128 persist=1 stages=4"
b n8s28x512 8,28,28,512,512 "$SMALL"
b s28x512 1,28,28,512,512 "$SMALL"
b odd1 2,30,45,128,256 "$BIG" bias,residual,relu
b odd2 3,13,21,192,128 "block_m=128 block_n=128 persist=1 stages=4" bias,relu
b odd3 5,7,9,64,256 "$SMALL"
