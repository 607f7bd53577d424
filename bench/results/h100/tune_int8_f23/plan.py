"""Build this folder's device work, CPU side (README.md), with the checkout whose wino_tvm is on
PYTHONPATH:
  python plan.py OUT          # int8 on the F(2, 3) kernel (fp32 accumulators) at the benchmark's
                              # C >= 128 workloads: with an f32 y every persistent and C-split
                              # config of ../tune_rows/ and their row-pair twins; with an int8 y
                              # the 3 fastest configs logged for the fp16 case
  python plan.py OUT PREFIX   # one side of the fp16 A/B: the logged picks of those workloads
                              # (fp32 accumulators, plain and with the whole epilogue)"""

import dataclasses
import importlib.util
import sys
from pathlib import Path

TUNE_ROWS_PLAN = Path(__file__).resolve().parents[1] / "tune_rows" / "plan.py"

if __name__ == "__main__":
    spec = importlib.util.spec_from_file_location("tune_rows_plan", TUNE_ROWS_PLAN)
    tune_rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tune_rows)  # puts bench/ (tune_cases) on sys.path
    from tune_cases import H100, fitting, logged_cases

    from wino_tvm.tune.builder import build_plan

    def wanted(wl):
        return wl.c >= 128 and wl.accum == "fp32"

    if len(sys.argv) > 2:
        chosen = [c for wl, logged in logged_cases() if wanted(wl) for c in fitting(wl, logged[:1])]
        build_plan(chosen, Path(sys.argv[1]), H100, prefix=sys.argv[2])
        sys.exit()
    configs = tune_rows.F23 + tune_rows.C_SPLIT
    configs += [c.with_(row_pairs=True) for c in configs]
    chosen = []
    for wl, logged in logged_cases():
        if not wanted(wl) or wl.epilogue:
            continue
        int8 = dataclasses.replace(wl, dtype="int8", out="fp32")
        chosen += fitting(int8, configs)
        chosen += fitting(dataclasses.replace(int8, out="int8"), logged[:3])
    build_plan(chosen, Path(sys.argv[1]), H100)
