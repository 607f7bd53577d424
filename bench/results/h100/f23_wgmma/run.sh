#!/bin/bash
# The F(2, 3) wgmma experiment on the device: OUT RUN SET [COMMIT]. .gpu/SET.tar.gz holds f23/
# (make.py's artifacts) and the kernels they are compared with (run 4: picks/, bench_full's fp16
# m=2 artifacts of d63957e; runs 5-7: v2/, the kernel of 1c40473). A smoke run (one artifact,
# not an ablation, under a timeout: a wrong barrier hangs) goes first; then batch checks and
# times f23/, and bench runs cuDNN and every artifact per workload in one process (not with
# NO_BENCH=1). Everything under OUT/RUN is packed into OUT/RUN.tar.gz.
set -u
source bench/device_set.sh "$1" "$2" "$3"
pack() { tar czf $1/$2.tar.gz -C $1 $2 && rm -rf $W; }
smoke=$(ls -d $P/f23/* | grep -v -- -ab_ | head -1)
timeout 120 python3 -m wino_tvm.runner $smoke --checks 1 --timeout 30 > $W/smoke.log 2>&1
rc=$?
echo "smoke $(basename $smoke): exit $rc"
[ $rc = 0 ] || { tail -n 20 $W/smoke.log; pack "$1" "$2"; exit 1; }
timeout 240 python3 -m wino_tvm.batch $P/f23 --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -8 $W/batch.log
[ -n "${NO_BENCH:-}" ] || timeout 300 python3 -m wino_tvm.bench $P --out $W/bench --iters 60 --commit "${4:-f23}" \
  > $W/bench.log 2>&1
[ -n "${NO_BENCH:-}" ] || tail -3 $W/bench.log
pack "$1" "$2"
