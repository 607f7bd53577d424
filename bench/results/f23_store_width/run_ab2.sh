nvidia-smi --query-gpu=name --format=csv,noheader
timeout 220 python3 -m wino_tvm.bench.ab .lab/ab2 --out $OUT/ab2 --jobs 16 > $OUT/ab2.log 2>&1; echo ab rc $?; grep -E "speed|over|correct:|unpaired|fail" $OUT/ab2.log | tail -16
timeout 150 env PYTHONPATH=$PWD python3 -m pytest -m gpu --no-skips -q -p no:cacheprovider tests/kernels/f23 > $OUT/gpu_tests.log 2>&1; echo gpu rc $?; tail -2 $OUT/gpu_tests.log
timeout 200 python3 -m wino_tvm.bench.sanitize .lab/san --out $OUT/san > $OUT/san.log 2>&1; echo san rc $?; grep -o '"tool": "[a-z]*", "exit": [0-9]*, "errors": [0-9a-z]*' $OUT/san/sanitize.jsonl | sort | uniq -c
