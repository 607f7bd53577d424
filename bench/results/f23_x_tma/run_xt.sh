#!/bin/bash
# quick checks under a timeout first (a hang stops here), then the A/B
for n in odd3 odd1 r28 cs int8 sk; do
  timeout 60 python3 -m wino_tvm.runner .lab/abx/b-$n --checks 2 --no-time 2>&1 | grep -E "check|error|Error|FAIL|rel" | head -4
  rc=${PIPESTATUS[0]}; echo "b-$n rc=$rc"; [ "$rc" = 0 ] || exit 1
done
timeout 420 python3 -m wino_tvm.bench.ab .lab/abx --out $OUT/ab --jobs 16 2>&1 | tail -18
