#!/bin/bash
# Scratch (not product): f44 per-kernel times (ncu) at 1x128²x512, then bench.compute.
export PYTHONPATH=$PWD WINO_TVM_CACHE=$PWD/artifacts/wcache WINO_TVM_COMMIT=${COMMIT:-dev}
timeout 200 python -m wino_tvm.build --shape 1,128,128,512,512 --family f44 --m 4 --out /tmp/f44_1 --no-run >/dev/null 2>&1
timeout 200 ncu --kernel-name regex:wino_f44 --launch-skip 1 --launch-count 3 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_elapsed /tmp/f44_1/wino_bench --no-time --checks 1 2>&1 | grep -E "wino_f44|duration|throughput|gmma|registers|warps_active" | head -30
timeout 450 python -m wino_tvm.bench.compute --out $OUT/compute --log $OUT/f44.jsonl --family f44 --bound 3e-3 \
  --workloads 1,128,128,512,512 1,256,256,512,512 8,28,28,512,512 1,256,256,256,256 1,28,28,512,512 128,14,14,256,256 2>&1 | grep -v "^\[\|wino_tvm:" | tail -20
