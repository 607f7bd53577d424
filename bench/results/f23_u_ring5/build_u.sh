#!/bin/bash
# usage: build_u.sh TREE SIDE ; the U-ring-depth A/B set from TREE into .lab/abu/SIDE-NAME
TREE=$1; SIDE=$2; OUT=/work/main/.lab/abu
P=fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16
cd $TREE
b() { local name=$1 shape=$2 cfg=$3; shift 3
  PYTHONPATH=$TREE python -m wino_tvm.build --shape $shape --config $cfg --out $OUT/$SIDE-$name --no-run "$@" > $OUT/log-$SIDE-$name.txt 2>&1 || { echo "FAIL $SIDE-$name"; tail -3 $OUT/log-$SIDE-$name.txt; }; }
b r14 128,14,14,256,256 $P-pb-f23-cr-rp-st3-xc2-pw
b r28 128,28,28,128,128 $P-pb-f23-cr-rp-st3-sw7-xc2-pw
b v256 1,256,256,256,256 $P-pb-f23-rp-st3-sw8-xc2-pw
b g112 1,112,112,128,128 $P-pb-f23-rp-st3-sw8-xc2-pw
b g56n8 8,56,56,256,256 $P-pb-f23-cr-rp-st3-sw7-xc2-pw
b g28n8 8,28,28,512,512 $P-pb-f23-rp-st3-sw8-xc2-pw
b v128 1,128,128,512,512 $P-pb-f23-rp-st3-sw8-xc2-pw
b v512 1,512,512,128,128 $P-pb-f23-rp-st3-sw8-xc2-pw
b g112n8 8,112,112,128,128 $P-pb-f23-rp-st3-sw8-xc2-pw
b o2 2,10,30,128,64 $P-pb-f23-cr-rp-st3-sw7-xc2-pw --epilogue bias,residual,relu
