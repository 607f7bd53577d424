"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT [PREFIX]   # ../tune_rows/plan.py's cases at the workloads the patch's row
                                # pad changes (W = 14, 28: T % 4 != 0), plain and with the
                                # epilogue; with PREFIX only the plain cases, as one side of
                                # the A/B"""

import importlib.util
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.tune.builder import build_plan

TUNE_ROWS_PLAN = Path(__file__).resolve().parents[1] / "tune_rows" / "plan.py"

if __name__ == "__main__":
    spec = importlib.util.spec_from_file_location("tune_rows_plan", TUNE_ROWS_PLAN)
    tune_rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tune_rows)
    prefix = sys.argv[2] if len(sys.argv) > 2 else None
    chosen = [c for c in tune_rows.cases() if c.wl.h in (14, 28)
              and (prefix is None or not c.wl.epilogue)]
    build_plan(chosen, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=prefix)
