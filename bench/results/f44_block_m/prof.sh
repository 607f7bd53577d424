#!/bin/bash
# per-kernel times at native clocks, and forward times, for each artifact given; CSVs to $OUT
cd lab_x/arts
for a in "$@"; do
  for p in 1 2; do echo "$a pass$p $(./$a/wino_bench --checks 2 --warmup 20 --iters 200 | python3 -c 'import json,sys; d=json.load(sys.stdin); print({k: d.get(k) for k in ("median_us","correct","rel_l2_err")})')"; done
done
for a in "$@"; do
  ncu --clock-control none --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread \
    --kernel-name regex:wino_f44_ --csv ./$a/wino_bench --checks 1 --warmup 1 --iters 1 2>/dev/null | grep '^"' > $OUT/ncu_$a.csv
  python3 - $OUT/ncu_$a.csv $a <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((int(r["ID"]), r["Kernel Name"].split("(")[0]), {})[r["Metric Name"].split("__")[1].split(".")[0][:14]] = r["Metric Value"]
for (i, k), m in sorted(by.items())[-3:]:
    print(sys.argv[2], k, m)
PY
done
