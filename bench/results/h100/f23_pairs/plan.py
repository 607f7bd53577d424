"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH:
  python plan.py OUT PREFIX   # ../tune_rows/plan.py's plain persistent cases (stream-K or not,
                              # both ring depths, both row layouts) and the logged picks, plain
                              # and with the epilogue, at the six C >= 128 workloads; without
                              # compact rows at odd H, which the row pairs refuse"""

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
    logged: dict = {}
    for c in tune_rows.cases():  # each case's first candidate is its logged pick
        logged.setdefault(c.wl, c.cfg)
    chosen = [c for c in tune_rows.cases()
              if (c.cfg == logged[c.wl] or (c.cfg.persist and not c.wl.epilogue))
              and not (c.cfg.compact_rows and c.wl.h % 2)]
    build_plan(chosen, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
