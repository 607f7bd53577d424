#!/bin/bash
# What each part of the lane picks costs (README.md). Usage: run.sh OUT RUN. Makes the
# ablations of plan.py's a0-* artifacts by editing copies of program.cu (variants.patch's
# kAblate): a1 no input transform, a2 no MMA, a3 no input copies, a5 neither transform nor
# copies. Their results are wrong by design; all are timed by batch in one run.
# Writes straight to OUT/RUN so partial results survive a timeout.
set -u
O=$1
W=$O/$2
mkdir -p $W
T=ablate; VARIANTS="1 2 3 5"
[ "${3:-}" = copies ] && T=ablate2 && VARIANTS="3 4 6"
[ "${3:-}" = power ] && T=ablate3 && VARIANTS="3 7"
tar xzf .gpu/$T.tar.gz -C .gpu
P=.gpu/$T
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
for d in $P/a0-*/; do
  rest=$(basename $d); rest=${rest#a0-}
  for v in $VARIANTS; do
    cp -r $d $P/a$v-$rest
    sed -i "s/constexpr int kAblate = 0;/constexpr int kAblate = $v;/" $P/a$v-$rest/program.cu
  done
done
grep -L "kAblate = 0;" $P/*/program.cu | wc -l > $W/variants.txt
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 1 > $W/batch.log 2>&1
tail -n 72 $W/batch.log | cut -c1-150
[ "${3:-}" = power ] || exit 0
# Clock and power per variant: samples every 50 ms while each runs alone (compiled by batch).
for c in N1_H960_W960_C64_K64-fp16-fp16 N128_H14_W14_C256_K256-fp16-fp16; do
  for v in a0 a3 a7; do
    d=$(ls -d $P/$v-$c-* | head -1)
    nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits -lms 50 > $W/s.csv &
    s=$!
    sleep 0.5
    $d/wino_bench --checks 1 --iters 4000 2> $W/b.err | grep -o '"median_us": [0-9.]*' > $W/b.txt
    kill $s; wait $s 2>/dev/null
    python3 - "$v-$c" $W/s.csv $W/b.txt >> $W/clocks.txt <<'PY'
import statistics, sys
rows = [tuple(float(x) for x in l.split(",")) for l in open(sys.argv[2]) if l.strip()]
busy = [r for r in rows if r[1] > 150] or rows  # samples while the kernel runs
print(f"{sys.argv[1]:50s} {open(sys.argv[3]).read().strip():24s} samples {len(busy):4d} "
      f"SM clock median {statistics.median(r[0] for r in busy):6.0f} MHz, "
      f"power median {statistics.median(r[1] for r in busy):6.1f} W")
PY
  done
done
rm -f $W/s.csv $W/b.txt $W/b.err
cat $W/clocks.txt
