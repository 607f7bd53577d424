#!/bin/bash
# build_v.sh VARIANT...: the f23 defaults of the A/B's shapes from /tmp/wt_VARIANT into lab_ws/VARIANT-shape
shapes="1,128,128,512,512 1,256,256,256,256 1,512,512,128,128 1,256,256,512,512 1,512,512,256,256 1,1024,1024,128,128 1,112,112,128,128 1,56,56,256,256 1,28,28,512,512 8,112,112,128,128 8,56,56,256,256 8,28,28,512,512 128,28,28,128,128 128,14,14,256,256 3,17,30,144,192"
one() { # variant shape suffix args...
  v=$1 shape=$2 suffix=$3; shift 3; root=/tmp/wt_$v; name=$v-$(echo $shape | tr , x)$suffix
  (cd $root && PYTHONPATH=$root /work/main/.venv/bin/python -m wino_tvm.build --shape $shape --family f23 --arch sm_90 --out /work/main/lab_ws/$name --no-run "$@" > /tmp/sass/log-$name 2>&1 && rm -f /work/main/lab_ws/$name/wino_bench /work/main/lab_ws/$name/*.cubin) || echo FAIL $name
}
for v in "$@"; do
  for s in $shapes; do one $v $s "" & [ $(jobs -r | wc -l) -ge 3 ] && wait -n; done
  one $v 2,9,14,128,64 -i8 --dtype int8 --accum fp32 &
  one $v 1,28,28,512,512 -sk --set stream_k=1 --set persist=1 --set c_split=1 --set x_chunks=1 --set row_pairs=1 &
  wait
done
