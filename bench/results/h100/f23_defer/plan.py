"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH: python plan.py OUT PREFIX, the same cases as ../f23_counters/plan.py."""

import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[1] / "f23_counters" / "plan.py"),
               run_name="__main__")
