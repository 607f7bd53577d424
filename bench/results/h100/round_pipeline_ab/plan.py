"""Build the same-run A/B of V's magic-number rounding (int8 ITrans, reconstructor.rounding) and
the input pipeline (persistent whole-tile kernels, reconstructor.input_pipeline), CPU side:
every bench_full variant either change touches (int8, or persistent), built today as
new_<artifact>; the old side is the 738302a build of ../bench_full/ (BEFORE), copied as
old_<artifact> (the sources of both changes' kernels did not change from 738302a to fd9de1c).

python bench/results/h100/round_pipeline_ab/plan.py .gpu/rp_ab .gpu/bf4
"""

import shutil
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import bench_full
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate


def main(out: str, before: str) -> None:
    todo = [Candidate(wl, cfg) for wl, cfg in bench_full() if wl.dtype == "int8" or cfg.persist]
    build_plan(todo, Path(out), KNOWN_DEVICES["h100"], prefix="new_")
    for cand in todo:
        shutil.copytree(Path(before) / cand.name, Path(out) / f"old_{cand.name}")


if __name__ == "__main__":
    main(*sys.argv[1:])
