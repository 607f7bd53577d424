"""Re-measure the previous tuned bests of the C >= 128 workloads that tune_async/ displaced:
their records predate this session's kernels (config names in todo.json, written
by comparing tuning_logs/h100.jsonl before and after tune_async/). usage: build.py TODO OUT"""
import dataclasses
import json
import sys
from pathlib import Path

from wino_tvm.artifact import commit_id
from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.tune.builder import build_batch
from wino_tvm.tune.manifest import Manifest
from wino_tvm.tune.space import Candidate

todo, out = json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2])
cands = [Candidate.from_config_name(dict(zip("NHWCK", shape, strict=True)), config)
         for shape, config in todo]
entries = build_batch(cands, out, "sm_90", jobs=1)
Manifest(tuple(entries), "sm_90", commit_id(), dataclasses.asdict(KNOWN_DEVICES["h100"]),
         ()).write(out)
