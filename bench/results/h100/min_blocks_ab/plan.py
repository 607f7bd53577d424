"""Build the same-run A/B of the blocks-per-SM count given to ptxas (reconstructor.occupancy),
CPU side: every bench_full variant, built today as new_<artifact>, kept where its forward
kernel got a count; the old side is the 8a7b0d5 build of ../bench_full_8a7b0d5/ (BEFORE), copied as
old_<artifact> (no generated source changed from 8a7b0d5 to d99015e). Also the pkf suite's
variants, where any got a count (their old side built at d99015e into OLD_PKF).

Runs at c6fb332 (the pass was reverted after this A/B):
python bench/results/h100/min_blocks_ab/plan.py .gpu/mb_ab .gpu/bf5 [.gpu/mb_old_pkf]
"""

import shutil
import sys
from pathlib import Path

from reconstructor.source import split_kernels
from wino_tvm.config import KNOWN_DEVICES
from wino_tvm.suites import bench_full, pkf
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate


def hinted(artifact: Path) -> bool:
    """Whether any forward kernel of the artifact got a blocks-per-SM count."""
    source = (artifact / "reconstructed.cu").read_text()
    return any(k.min_blocks is not None for k in split_kernels(source).kernels)


def main(out: str, before: str, old_pkf: str | None = None) -> None:
    suites = [("bench_full", [Candidate(wl, cfg) for wl, cfg in bench_full()], Path(before))]
    if old_pkf is not None:
        suites.append(("pkf", [Candidate(wl, cfg) for wl, cfg in pkf()], Path(old_pkf)))
    # One build: build_plan renames every folder in out, so the old sides are copied after.
    build_plan([c for _, todo, _ in suites for c in todo], Path(out), KNOWN_DEVICES["h100"],
               prefix="new_")
    for name, todo, old in suites:
        kept = 0
        for cand in todo:
            new = Path(out) / f"new_{cand.name}"
            if hinted(new):
                shutil.copytree(old / cand.name, Path(out) / f"old_{cand.name}")
                kept += 1
            else:
                shutil.rmtree(new)
        print(f"{name}: {kept} of {len(todo)} variants got a count")


if __name__ == "__main__":
    main(*sys.argv[1:])
