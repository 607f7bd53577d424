#!/bin/bash
# quick checks under a timeout first (a hang stops here), then the A/B
for n in odd3 odd1 r28; do
  timeout 60 python3 -m wino_tvm.runner .lab/ab5/b-$n --checks 2 --no-time 2>&1 | grep -E "check|error|Error|FAIL" | head -4
  rc=${PIPESTATUS[0]}; echo "b-$n rc=$rc"; [ "$rc" = 0 ] || exit 1
done
timeout 420 python3 -m wino_tvm.bench.ab .lab/ab5 --out $OUT/ab --jobs 16 2>&1 | tail -14
