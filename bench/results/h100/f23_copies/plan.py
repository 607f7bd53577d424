"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH:
  python plan.py OUT PREFIX   # ../tune_sk/plan.py's cases without the epilogue: the six C >= 128
                              # workloads, persistent st3 / st4 with and without stream-K beside
                              # the logged pick"""

import importlib.util
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.tune.builder import build_plan

TUNE_SK_PLAN = Path(__file__).resolve().parents[1] / "tune_sk" / "plan.py"

if __name__ == "__main__":
    spec = importlib.util.spec_from_file_location("tune_sk_plan", TUNE_SK_PLAN)
    tune_sk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tune_sk)
    cases = [c for c in tune_sk.cases() if not c.wl.epilogue]
    build_plan(cases, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
