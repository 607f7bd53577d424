ROOT=/work/main/.lab/ab2; rm -rf $ROOT; mkdir -p $ROOT
P=fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16
b() { (cd $1 && /work/main/.venv/bin/python -m wino_tvm.build --shape $2 --config $3 --out $ROOT/$4 --no-run > $ROOT/$4.log 2>&1 || echo FAIL $4); }
for spec in "1,28,28,512,512 f23-rp-st4-sw8-xc2-cs2 v28n1" "1,56,56,256,256 f23-rp-st4-sw8-xc2-cs2 v56n1" "32,7,7,512,512 f23-rp-st4-xc2-cs2 r7n32" "1,14,14,512,512 f23-rp-st4-xc2-cs2 v14n1" "1,28,28,256,256 f23-rp-st4-sw8-xc2-cs2 c28"; do
  set -- $spec
  b /work/main $1 $P-$2 a-$3
  b /tmp/lab_b $1 $P-$2-pw b-$3
done
ls $ROOT
