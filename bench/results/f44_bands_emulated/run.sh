#!/bin/bash
# f44_bands_emulated: each full shape (a-) and its band shapes (b-, c-, d-: H cut to a band of tile rows)
set -e
source .venv/bin/activate
R=.lab/ab3
mk() { python -m wino_tvm.build --family f44 --m 4 --shape $2 --no-run --out $R/$1 > /dev/null; }
mk a-v512x256 1,512,512,256,256 & mk b-v512x256 1,16,512,256,256 & mk c-v512x256 1,32,512,256,256 & mk d-v512x256 1,64,512,256,256; wait
mk a-v256x256 1,256,256,256,256 & mk b-v256x256 1,32,256,256,256 & mk c-v256x256 1,64,256,256,256 & mk d-v256x256 1,128,256,256,256; wait
mk a-v512x128 1,512,512,128,128 & mk b-v512x128 1,32,512,128,128 & mk c-v512x128 1,64,512,128,128 & mk d-v512x128 1,128,512,128,128; wait
mk a-v128x512 1,128,128,512,512 & mk b-v128x512 1,32,128,512,512 & mk c-v128x512 1,64,128,512,512; wait
mk a-v256x512 1,256,256,512,512 & mk b-v256x512 1,32,256,512,512 & mk c-v256x512 1,64,256,512,512; wait
mk a-n8x56 8,56,56,256,256 & mk b-n8x56 2,56,56,256,256 & mk c-n8x56 4,56,56,256,256; wait
find $R -name wino_bench -delete
