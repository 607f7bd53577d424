"""Re-measure the previous tuned bests of the C >= 128 workloads that tune_async/ displaced:
their records predate this session's kernels (config names in todo.json, written
by comparing tuning_logs/h100.jsonl before and after tune_async/). usage: build.py TODO OUT"""
import json
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate

todo, out = json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2])
cands = [Candidate.from_config_name(dict(zip("NHWCK", shape, strict=True)), config)
         for shape, config in todo]
build_plan(cands, out, KNOWN_DEVICES["h100"], jobs=1)
