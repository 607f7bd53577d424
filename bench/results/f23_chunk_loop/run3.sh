#!/bin/bash
# ncu source counters (per-SASS stall samples) of the f23 default at 1x128x128x512x512 and 1x512x512x128x128
export PYTHONPATH=$PWD
python - <<'PY'
from pathlib import Path
from wino_tvm.runner import compile_program, detect_arch
for d in ("lab_ws/a-1x128x128x512x512", "lab_ws/a-1x512x512x128x128"):
    compile_program(Path(d), detect_arch())
PY
for s in 1x128x128x512x512 1x512x512x128x128; do
  ncu --section SourceCounters --section WarpStateStats -k wino_f23_forward -c 1 -o $OUT/src_$s \
    lab_ws/a-$s/wino_bench --checks 1 --iters 1 --warmup 1 > $OUT/log_$s.txt 2>&1
  ncu --import $OUT/src_$s.ncu-rep --page source --csv --print-source sass > $OUT/src_$s.csv 2>&1
done
# summarised on the CPU: python3 srcstall.py src_$s.csv 40 > run3_stalls_$s.txt
