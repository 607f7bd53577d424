import sys
from pathlib import Path
from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload
out = []
for shape in BENCH_WORKLOADS:
    for accum in ("fp16", "fp32"):
        wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum)
        found = best_config(TUNING_LOG, wl, "h100", 2, "full")
        if found and found[0].lane:
            out.append(Candidate(wl, found[0]))
for c in out: print(c.wl.name if hasattr(c.wl,'name') else c.wl, c.cfg.name(c.wl))
if len(sys.argv) > 2:
    build_plan(out, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
