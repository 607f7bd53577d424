#!/bin/bash
# f23_x_tma: a = each shape's f23 default, b = the same with x_tma
set -e
source .venv/bin/activate
R=.lab/abx
rm -rf $R; mkdir -p $R
b() { # name shape [extra build args...]
  local name=$1 shape=$2; shift 2
  python -m wino_tvm.build --family f23 --shape $shape "$@" --no-run --out $R/a-$name > /dev/null &
  python -m wino_tvm.build --family f23 --shape $shape "$@" --set x_tma=1 --no-run --out $R/b-$name > /dev/null
  wait
}
b r28 128,28,28,128,128
b r14 128,14,14,256,256
b v256 1,256,256,256,256
b v512 1,512,512,128,128
b g112 8,112,112,128,128
b n1g112 1,112,112,128,128
b v128 1,128,128,512,512
b g56 8,56,56,256,256
b odd1 3,17,45,128,192 --epilogue bias,residual,relu
b odd2 2,30,30,256,128 --set persist=0 --set c_split=1
b odd3 5,9,13,64,64 --set c_split=1 --set strip=0 --set compact_rows=0 --set row_pairs=0 --set x_chunks=1
b int8 8,28,28,128,128 --dtype int8 --accum fp32
b sk 128,14,14,256,256 --set stream_k=1 --set persist=1 --set c_split=1 --set x_chunks=1
find $R -name wino_bench -delete
for d in $R/b-*; do python -c "import json;print('$d', json.load(open('$d/config.json')).get('name', ''))" 2>/dev/null || true; done
