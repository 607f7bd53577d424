#!/bin/bash
# f23_no_finish: the f23 defaults (a) against the same sources with each tile's finish
# (OTrans, epilogue, y stores) behind a branch never taken (b; results wrong: timing only).
set -e
source .venv/bin/activate
R=.lab/ab2
for s in "r28:128,28,28,128,128" "r14:128,14,14,256,256" "v256:1,256,256,256,256" \
         "v512:1,512,512,128,128" "g112:8,112,112,128,128"; do
  n=${s%%:*}; sh=${s#*:}
  python -m wino_tvm.build --family f23 --shape $sh --no-run --out $R/a-$n
  cp -r $R/a-$n $R/b-$n
  sed -i 's/^    finish_tile(tile, piece);/    if (reinterpret_cast<uintptr_t>(y) == 1) finish_tile(tile, piece);/' \
    $R/b-$n/program.cu
done
find $R -name wino_bench -delete
# on the device: python3 -m wino_tvm.bench.ab .lab/ab2 --out $OUT/ab --jobs 16
