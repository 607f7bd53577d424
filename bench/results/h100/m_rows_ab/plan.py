"""Build the same-run A/B of the wide M rows (KernelConfig.m_row_elems), CPU side: every
bench_full variant whose M row changed, built today as new_<artifact>; the old side is the
8a7b0d5 build of ../bench_full_8a7b0d5/ (BEFORE), copied as old_<artifact> (no generated source
changed from 8a7b0d5 to the commit before this change).

python bench/results/h100/m_rows_ab/plan.py .gpu/mr_ab .gpu/bf5
"""

import json
import shutil
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import bench_full
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate


def main(out: str, before: str) -> None:
    todo = []
    for wl, cfg in bench_full():
        cand = Candidate(wl, cfg)
        old = json.loads((Path(before) / cand.name / "config.json").read_text())
        (launch,) = old["forward_launches"]
        if launch["shared_bytes"] != cfg.smem_bytes(wl):  # the M slice grew: wide rows
            todo.append(cand)
    build_plan(todo, Path(out), KNOWN_DEVICES["h100"], prefix="new_")
    for cand in todo:
        shutil.copytree(Path(before) / cand.name, Path(out) / f"old_{cand.name}")


if __name__ == "__main__":
    main(*sys.argv[1:])
