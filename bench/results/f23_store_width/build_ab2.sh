ROOT=/work/main/.lab/ab2; rm -rf $ROOT; mkdir -p $ROOT
P=fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16
I8=int8-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16
b() { local tree=$1 shape=$2 cfg=$3 name=$4; shift 4; (cd $tree && PYTHONPATH=$tree /work/main/.venv/bin/python -m wino_tvm.build --shape $shape --config $cfg --out $ROOT/$name --no-run $@ > /dev/null 2>&1 || echo FAIL $name); }
while read shape cfg bcfg name extra; do
  b /tmp/lab_a $shape $P-$cfg a-$name $extra
  b /work/main $shape $P-$cfg b-$name $extra
done <<LIST
128,28,28,128,128 pb-f23-cr-rp-st3-sw7-xc2-pw pb-f23-cr-rp-st3-sw7-xc2-pw-ps r28
128,14,14,256,256 pb-f23-cr-rp-st4-xc2-pw pb-f23-cr-rp-st3-xc2-pw-ps r14s4
128,14,14,256,256 pb-f23-cr-rp-st3-xc2-pw pb-f23-cr-rp-st3-xc2-pw-ps r14
8,112,112,128,128 pb-f23-rp-st3-sw8-xc2-pw pb-f23-rp-st3-sw8-xc2-pw-ps v112n8
1,112,112,128,128 pb-f23-rp-st3-sw8-xc2-pw pb-f23-rp-st3-sw8-xc2-pw-ps v112n1
8,56,56,256,256 pb-f23-cr-rp-st3-sw7-xc2-pw pb-f23-cr-rp-st3-sw7-xc2-pw-ps v56n8
8,28,28,512,512 pb-f23-rp-st3-sw8-xc2-pw pb-f23-rp-st3-sw8-xc2-pw-ps v28n8
1,256,256,256,256 pb-f23-rp-st3-sw8-xc2-pw pb-f23-rp-st3-sw8-xc2-pw-ps vae256
1,512,512,128,128 pb-f23-rp-st3-sw8-xc2-pw pb-f23-rp-st3-sw8-xc2-pw-ps vae512
2,10,30,128,64 pb-f23-cr-rp-st3-sw7-xc2-pw pb-f23-cr-rp-st3-sw7-xc2-pw-ps o2 --epilogue=bias,residual,relu
3,17,29,128,192 pb-f23-rp-st3-sw8-xc2-pw pb-f23-rp-st3-sw8-xc2-pw-ps o1
5,9,13,128,64 pb-f23-sk-st3 pb-f23-sk-st3 o3
LIST
while read shape cfg bcfg name extra; do
  b /tmp/lab_a $shape $I8-$cfg a-$name $extra
  b /work/main $shape $I8-$cfg b-$name $extra
done <<LIST
2,12,20,64,64 pb-f23-cr-rp-st3-xc2-pw pb-f23-cr-rp-st3-xc2-pw-ps o5 --dtype=int8 --accum=fp32 --out-dtype=int8 --epilogue=bias,relu
LIST
find $ROOT -name wino_bench -delete
