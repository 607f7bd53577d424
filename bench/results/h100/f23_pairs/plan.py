"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH:
  python plan.py OUT PREFIX   # ../f23_counters/plan.py's cases (the plain persistent ones and
                              # the logged picks at the six C >= 128 workloads) and the picks
                              # with the epilogue; without compact rows at odd H, which the
                              # first row pairs refused"""

import importlib.util
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.tune.builder import build_plan

COUNTERS_PLAN = Path(__file__).resolve().parents[1] / "f23_counters" / "plan.py"

if __name__ == "__main__":
    spec = importlib.util.spec_from_file_location("f23_counters_plan", COUNTERS_PLAN)
    counters = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counters)
    chosen = [c for c in counters.cases(epilogue_picks=True)
              if not (c.cfg.compact_rows and c.wl.h % 2)]
    build_plan(chosen, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
