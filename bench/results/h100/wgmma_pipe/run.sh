#!/bin/bash
# wgmma's wait and shape in the lane kernel (README.md). Usage: run.sh OUT RUN. Makes the
# variants of plan.py's v00-* artifacts by editing copies of program.cu (variants.patch's
# constants): v10 commits each tap row's wgmma on its own and waits for all but the newest
# group at a step's start; v01 issues each n64 wgmma as two n32 (fp16 64-channel tap splits
# only); v11 both. Then all of them timed by batch, then the 960² fp16 tap split's v00 and
# v10 under ncu --set full. Writes straight to OUT/RUN so partial results survive a timeout.
set -u
O=$1
W=$O/$2
mkdir -p $W
tar xzf .gpu/wgmma_pipe.tar.gz -C .gpu
P=.gpu/wgmma_pipe
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/env.txt
for d in $P/v00-*/; do
  rest=$(basename $d); rest=${rest#v00-}
  for v in 10 01 11; do
    case $rest in *-fp16-fp16-*tbn64-*-wg-*ts2) ;; *) [ ${v:1:1} = 1 ] && continue ;; esac
    cp -r $d $P/v$v-$rest
    sed -i "s/constexpr int kExpPipe = 0;/constexpr int kExpPipe = ${v:0:1};/;
            s/constexpr int kExpN32 = 0;/constexpr int kExpN32 = ${v:1:1};/" $P/v$v-$rest/program.cu
  done
done
grep -l "kExpPipe = 1" $P/*/program.cu | wc -l > $W/variants_pipe.txt
grep -l "kExpN32 = 1" $P/*/program.cu | wc -l > $W/variants_n32.txt
python3 -m wino_tvm.batch $P --record $W/batch.jsonl --checks 3 > $W/batch.log 2>&1
tail -n 60 $W/batch.log
for v in v00 v10; do
  d=$(ls -d $P/$v-N1_H960_W960_C64_K64-fp16-fp16-*tbn64*ts2 | head -1)
  timeout 120 ncu --clock-control none --set full -k regex:wino_lane_forward --launch-count 1 \
    -o $W/ncu_$v $d/wino_bench --checks 1 --no-time >> $W/ncu.log 2>&1
  ncu --import $W/ncu_$v.ncu-rep --page raw --csv > $W/ncu_${v}_raw.csv 2>> $W/ncu.log
  rm -f $W/ncu_$v.ncu-rep && gzip $W/ncu_${v}_raw.csv
done
