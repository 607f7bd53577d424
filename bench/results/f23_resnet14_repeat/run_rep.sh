export WINO_TVM_COMMIT=5999bbc
for i in 1 2 3; do
timeout 100 python -m wino_tvm.bench.compute --out $OUT/r$i --log $OUT/scratch.jsonl --stem rep --axis f23.strip=0 --axis f23.x_chunks=2 --axis f23.row_pairs=1 --axis f23.compact_rows=1 --axis f23.producer=1 --axis f23.c_split=1 --workloads 128,14,14,256,256 > $OUT/r$i.log 2>&1; echo rc $?
tail -1 $OUT/r$i/rep.md
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
