cd "$(dirname "$0")/.."
timeout 200 python3 -m wino_tvm.bench.ab .lab/abh --out $OUT/abh --jobs 16 > $OUT/abh.log 2>&1; echo rc $?; grep -E "speed|over|correct:" $OUT/abh.log | tail -14
timeout 150 python3 -m wino_tvm.bench.sanitize .lab/sanh --out $OUT/sanh > $OUT/sanh.log 2>&1; echo san rc $?; grep -o '"artifact": "[^"]*-\(o[0-9]\)[^"]*\|"tool": "[a-z]*", "exit": [0-9]*, "errors": [0-9a-z]*' $OUT/sanh/sanitize.jsonl | tail -12
