"""Build the same-run A/B of int8 ITrans's V rows step apart with packed word stores
(a8e7ed8), CPU side: every int8 bench_full variant, built today as new_<artifact>; the old side
is the 8363668 build of the benchmark (BEFORE), copied as old_<artifact>.

python bench/results/h100/it_rows_ab/plan.py .gpu/ir_ab .gpu/bf7
"""

import shutil
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import bench_full
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate


def main(out: str, before: str) -> None:
    todo = [Candidate(wl, cfg) for wl, cfg in bench_full() if wl.dtype == "int8"]
    build_plan(todo, Path(out), KNOWN_DEVICES["h100"], prefix="new_")
    for cand in todo:
        shutil.copytree(Path(before) / cand.name, Path(out) / f"old_{cand.name}")


if __name__ == "__main__":
    main(*sys.argv[1:])
