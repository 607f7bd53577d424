#!/bin/sh
# a: the f23 default at d2df892 (the producer), b: producer=0, c: a with its finish behind a
# branch on y's address (timing only: its outputs are never written).
for s in r28:128,28,28,128,128 r14:128,14,14,256,256 v256:1,256,256,256,256 \
         g112:8,112,112,128,128 n1g112:1,112,112,128,128; do
  n=${s%%:*}; sh=${s#*:}
  python -m wino_tvm.build --family f23 --shape $sh --no-run --out .lab/ab/a-$n
  python -m wino_tvm.build --family f23 --shape $sh --set producer=0 --no-run --out .lab/ab/b-$n
  cp -r .lab/ab/a-$n .lab/ab/c-$n
  sed -i 's/^    finish_tile(tile, piece);/    if (reinterpret_cast<uintptr_t>(y) == 1) finish_tile(tile, piece);/' \
    .lab/ab/c-$n/program.cu
done
find .lab -name wino_bench -delete
# on the device: python3 -m wino_tvm.bench.ab .lab/ab --out $OUT/ab --jobs 16
