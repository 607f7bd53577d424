#!/bin/bash
export PYTHONPATH=$PWD WINO_TVM_CACHE=$PWD/artifacts/wcache WINO_TVM_COMMIT=$COMMIT
timeout 200 python3 -m pytest -m gpu -q -p no:cacheprovider tests/kernels/f44 2>&1 | tail -4
timeout 330 python -m wino_tvm.bench.compute --out $OUT --stem cl --log $OUT/cl_log.jsonl --family f44 --bound 3e-3 \
  --workloads 1,128,128,512,512 1,256,256,512,512 8,28,28,512,512 >/dev/null 2>&1
python -c "
import json
for l in open('$OUT/cl_log.jsonl'):
    r=json.loads(l); print(list(r['workload'].values()), r['config'][-24:], round(r['median_us'],1), r['rel_l2_err'])"
