#!/bin/bash
# Scratch (not product): f44 with 2-channel ITrans and persistent GEMM: correctness, ncu, sweep.
export PYTHONPATH=$PWD WINO_TVM_CACHE=$PWD/artifacts/wcache WINO_TVM_COMMIT=${COMMIT:-dev}
i=0
for spec in "3,37,45,128,256:bias,residual,relu:0" "3,37,45,128,256:bias,residual,relu:1" "2,30,17,192,128:bias:1" "1,7,9,64,128:residual,relu:1"; do
  IFS=: read shape epi pb <<< "$spec"; i=$((i+1))
  timeout 200 python -m wino_tvm.build --shape $shape --family f44 --m 4 --set persist=$pb ${epi:+--epilogue $epi} --out /tmp/f44_$i --checks 3 2>&1 | tail -1 | python -c "import sys,ast; r=ast.literal_eval(sys.stdin.read()); print(r['workload'], r['config'], r['epilogue'], r['median_us'], r['rel_l2_err'], r['nonfinite'], r['correct'])"
done
for pb in 0 1; do
timeout 200 python -m wino_tvm.build --shape 1,128,128,512,512 --family f44 --m 4 --set persist=$pb --out /tmp/f44_p$pb --no-run >/dev/null 2>&1
timeout 200 ncu --kernel-name regex:wino_f44 --launch-skip 1 --launch-count 3 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_elapsed /tmp/f44_p$pb/wino_bench --no-time --checks 1 2>&1 | grep -E "^  wino_f44|duration|throughput|gmma|warps_active" | sed 's/  */ /g' | head -30
done
timeout 400 python -m wino_tvm.bench.compute --out $OUT/compute --log $OUT/f44.jsonl --family f44 --bound 3e-3 \
  --workloads 1,128,128,512,512 1,256,256,512,512 8,28,28,512,512 2>&1 | grep -v "^\[\|wino_tvm:" | python -c "
import sys, json
for l in sys.stdin:
    try: r = json.loads(l)
    except Exception: print(l.rstrip()[:300]); continue
    print(r['workload'], round(r['cudnn_us'],1), r['best']['config'], round(r['best']['us'],1), round(r['best']['speedup'],3))"
python -c "
import json
for l in open('$OUT/f44.jsonl'):
    r=json.loads(l); print(list(r['workload'].values()), r['config'][-30:], round(r['median_us'],1))"
