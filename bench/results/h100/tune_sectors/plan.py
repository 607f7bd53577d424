"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # the benchmark's C >= 128 workloads, fp16 with fp32 accumulators, no
                       # epilogue: every persistent and C-split config of ../tune_rows/plan.py
                       # and their row-pair twins, the logged pick first"""

import importlib.util
import sys
from pathlib import Path

TUNE_ROWS_PLAN = Path(__file__).resolve().parents[1] / "tune_rows" / "plan.py"

if __name__ == "__main__":
    spec = importlib.util.spec_from_file_location("tune_rows_plan", TUNE_ROWS_PLAN)
    tune_rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tune_rows)  # puts bench/ (tune_cases) on sys.path
    from tune_cases import H100, picks_beside

    from wino_tvm.tune.builder import build_plan

    configs = tune_rows.F23 + tune_rows.C_SPLIT
    configs += [c.with_(row_pairs=True) for c in configs]
    chosen = picks_beside(configs, lambda wl: wl.c >= 128 and wl.accum == "fp32"
                          and not wl.epilogue)
    build_plan(chosen, Path(sys.argv[1]), H100)
