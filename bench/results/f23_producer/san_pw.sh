#!/bin/bash
# racecheck and synccheck of the producer on a small shape, then a second A/B of 4 shapes
d=.lab/ab5/b-odd3
timeout 60 python3 -m wino_tvm.runner $d --checks 1 --no-time > /dev/null 2>&1; echo "build rc=$?"
for tool in racecheck synccheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 $d/wino_bench --checks 1 --no-time 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|Barrier" | head -4
  echo "$tool rc=${PIPESTATUS[0]}"
done
mkdir -p .lab/ab6; for n in r14 r28 v256 g112; do cp -r .lab/ab5/a-$n .lab/ab5/b-$n .lab/ab6/; done
find .lab/ab6 -name wino_bench -delete
timeout 150 python3 -m wino_tvm.bench.ab .lab/ab6 --out $OUT/ab6 --jobs 16 2>&1 | tail -6
