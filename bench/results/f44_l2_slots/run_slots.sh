#!/bin/bash
# time each artifact (two passes, interleaved), then ncu per kernel on base and slots3
cd lab_x/arts
for pass in 1 2; do for d in base_1x128* slots*_1x128* base_1x256* slots3_1x256* base_1x512* slots*_1x512*; do
  r=$(./$d/wino_bench --checks 1 --warmup 20 --iters 100 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print(round(j["median_us"],1), j["correct"])')
  echo "pass$pass $d $r"; done; done
for d in base_1x128x128x512x512 slots3_1x128x128x512x512 base_1x512x512x256x256 slots3_1x512x512x256x256; do
  ncu --clock-control none --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum --launch-skip 5 --launch-count 3 ./$d/wino_bench --checks 1 --warmup 2 --iters 1 2>/dev/null | grep -E "wino_f44|duration|dram__|lts__|inst_exec" | sed "s/^/$d /" > $OUT/ncu_$d.txt
done
cat $OUT/ncu_*.txt
