ROOT=/work/main/.lab/abf; rm -rf $ROOT; mkdir -p $ROOT
P=fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16
b() { (cd $1 && PYTHONPATH=$1 /work/main/.venv/bin/python -m wino_tvm.build --shape $2 --config $3 --out $ROOT/$4 --no-run > /dev/null 2>&1 || echo FAIL $4); }
for spec in "128,14,14,256,256 pb-f23-cr-rp-st3-xc2-pw r14" "128,14,14,256,256 pb-f23-cr-rp-st4-xc2-pw r14st4" "8,112,112,128,128 pb-f23-rp-st3-sw8-xc2-pw v112n8" "1,256,256,256,256 pb-f23-rp-st3-sw8-xc2-pw vae256" "128,28,28,128,128 pb-f23-cr-rp-st3-sw7-xc2-pw r28" "1,112,112,128,128 pb-f23-rp-st3-sw8-xc2-pw v112n1" "8,56,56,256,256 pb-f23-cr-rp-st3-sw7-xc2-pw v56n8"; do
  set -- $spec
  b /work/main $1 $P-$2 a-$3
  b /tmp/lab_b $1 $P-$2 b-$3
done
