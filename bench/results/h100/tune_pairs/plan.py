"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # ../tune_rows/plan.py's configs with row pairs (rp): the persistent
                       # configs (both ring depths, stream-K or not) and the C split's, each
                       # with compact GEMM rows and without, at the benchmark's C >= 128
                       # workloads with fp32 accumulators, plain and with the whole epilogue,
                       # beside the logged pick"""

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

    paired = [c.with_(row_pairs=True) for c in tune_rows.F23 + tune_rows.C_SPLIT]
    chosen = picks_beside(paired, lambda wl: wl.c >= 128 and wl.accum == "fp32")
    build_plan(chosen, Path(sys.argv[1]), H100)
