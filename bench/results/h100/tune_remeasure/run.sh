#!/bin/bash
# At 3db3e6f (build.py): the 12 displaced bests re-measured by the tuner, 3 checks each.
set -u
O=$1
tar xzf .gpu/remeasure.tar.gz -C .gpu
python3 -m wino_tvm.tune measure .gpu/remeasure --log $O/tune_remeasure.jsonl > $O/remeasure.log 2>&1
tail -14 $O/remeasure.log
