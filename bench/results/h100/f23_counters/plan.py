"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH:
  python plan.py OUT PREFIX   # ../tune_rows/plan.py's plain persistent cases (stream-K or not,
                              # both ring depths, both row layouts) and the logged picks at the
                              # six C >= 128 workloads"""

import importlib.util
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.tune.builder import build_plan

TUNE_ROWS_PLAN = Path(__file__).resolve().parents[1] / "tune_rows" / "plan.py"


def cases(epilogue_picks: bool = False) -> list:
    """The plain persistent cases and the logged picks (with epilogue_picks, also the picks of
    the cases with the epilogue)."""
    spec = importlib.util.spec_from_file_location("tune_rows_plan", TUNE_ROWS_PLAN)
    tune_rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tune_rows)
    logged: dict = {}
    for c in tune_rows.cases():  # each case's first candidate is its logged pick
        logged.setdefault(c.wl, c.cfg)
    return [c for c in tune_rows.cases()
            if (c.cfg == logged[c.wl] and (epilogue_picks or not c.wl.epilogue))
            or (c.cfg.persist and not c.wl.epilogue)]


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
