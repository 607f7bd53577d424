nvidia-smi --query-gpu=name --format=csv,noheader
timeout 250 python3 -m wino_tvm.bench.ab .lab/abp --out $OUT/abp --jobs 16 > $OUT/abp.log 2>&1; echo ab rc $?; grep -E "speed|over|correct|unpaired|fail" $OUT/abp.log | tail -32
timeout 150 env PYTHONPATH=$PWD python3 -m pytest -m gpu --no-skips -q -p no:cacheprovider tests/kernels/f23 > $OUT/gpu_tests.log 2>&1; echo gpu rc $?; tail -4 $OUT/gpu_tests.log
timeout 150 python3 -m wino_tvm.bench.sanitize .lab/sanp --out $OUT/sanp > $OUT/sanp.log 2>&1; echo san rc $?; grep -o '"artifact": "[^"]*"\|"tool": "[a-z]*", "exit": [0-9]*, "errors": [0-9a-z]*' $OUT/sanp/sanitize.jsonl | tail -12
