#!/bin/bash
# racecheck: the probe (mbarrier-ordered cp.async, per thread and per warp arrivals; a real race
# as the control), then f23 at 5x9x13 64->64: a default, b producer, d producer with every
# consumer thread arriving on x_empty (no __syncwarp delegation)
cd .lab/rc
for p in rc_sync rc_warp rc_race; do
  echo "=== $p"; timeout 10 ./$p
  timeout 30 compute-sanitizer --tool racecheck --racecheck-report all ./$p 2>&1 | grep -E "RACECHECK SUMMARY"
done
cd ../..
for s in b d a; do
  d=.lab/rc/$s-odd3
  timeout 40 python3 -m wino_tvm.runner $d --checks 1 --no-time 2>&1 | grep -E "check 1" ; echo "$s check rc=${PIPESTATUS[0]}"
  timeout 60 compute-sanitizer --tool racecheck --racecheck-report all $d/wino_bench --checks 1 --no-time > $OUT/rc_$s.txt 2>&1; echo "$s racecheck rc=$?"
  grep -E "RACECHECK SUMMARY" $OUT/rc_$s.txt
  grep -E "Race reported|Error|Warning" $OUT/rc_$s.txt | sed 's/0x[0-9a-f]*/ADDR/g; s/([0-9,]*)/(T)/g' | sort | uniq -c | sort -rn | head -4
done
