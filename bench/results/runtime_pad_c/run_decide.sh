#!/bin/bash
export PYTHONPATH=$PWD WINO_TVM_CACHE=$PWD/lab_pad/cache
python lab_pad/decide.py 2>&1 | grep -v "^\[" | tee $OUT/decide.jsonl
