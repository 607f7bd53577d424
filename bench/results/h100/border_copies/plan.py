"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT PREFIX  # the cases of ../stage_fast/plan.py (every benchmark case whose
                             # tuned pick is a lane kernel), built by the checkout this runs
                             # in, each folder named PREFIX + name: run at 101af15 (a-) and at
                             # 7c96d4b (e-)"""

import importlib.util
import sys
from pathlib import Path

from wino_tvm.tune.builder import build_plan

spec = importlib.util.spec_from_file_location(
    "stage_fast_plan", Path(__file__).resolve().parents[1] / "stage_fast" / "plan.py")
stage_fast = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stage_fast)

if __name__ == "__main__":
    build_plan(stage_fast.cases(), Path(sys.argv[1]), stage_fast.H100, prefix=sys.argv[2])
