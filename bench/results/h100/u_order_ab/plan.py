"""Build the same-run A/B of U in fragment order (reconstructor.fragment_order), CPU side: the
int8 full kernels that load B fragments from L2 (ul2): every such bench_full variant, and per
benchmark workload the logged ul2 configs within NEAR_BEST of the int8 best (tuning_logs/
h100.jsonl as it stood at this run, 2874 lines).

PYTHONPATH=<de93984 worktree> python .../plan.py .gpu/uo old   # the commit before: ab/old_*
python bench/results/h100/u_order_ab/plan.py .gpu/uo new       # this commit: tune/ + ab/new_*

old builds the candidates at the parent commit; new builds the tuning batch (tune/, `python -m
wino_tvm.tune measure`) and copies it to ab/ as the A/B's new side. Old first: build_plan's
prefix renames every other folder in ab/ (this run: new first, then old_new_* renamed back).
"""

import dataclasses
import shutil
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, TUNING_LOG, bench_full
from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

NEAR_BEST = 1.35
# Correctness of the other kernels the pass rewrites (N=1 224^2, m=2 unless said): PKF and
# syncfree BGEMMs, the 32x8 and 8x32 fragments, m=4.
OTHERS = (dict(tb_m=16, tb_n=64, tb_k=16, fusion="shmem"),
          dict(tb_m=16, tb_n=64, tb_k=16, fusion="llc"),
          dict(tb_m=16, tb_n=64, tb_k=16, fusion="syncfree"),
          dict(tb_m=32, tb_n=32, tb_k=64, frag_m=32, frag_n=8, fusion="full"),
          dict(tb_m=32, tb_n=32, tb_k=64, frag_m=8, frag_n=32, fusion="full"),
          dict(tb_m=32, tb_n=32, tb_k=32, fusion="full", m=4))


def candidates() -> list[Candidate]:
    out = [Candidate(wl, cfg) for wl, cfg in bench_full()
           if wl.dtype == "int8" and not cfg.u_smem]
    records = latest(read_records(TUNING_LOG))
    for shape in BENCH_WORKLOADS:
        probe = Conv2dWorkload(*shape, dtype="int8", accum="int32")
        found = sorted(matching(records, probe, "h100", fusion="full"), key=lambda r: r.median_us)
        for r in found:
            cand = Candidate(dataclasses.replace(probe, m=r.m), r.kernel_config())
            near = r.median_us <= NEAR_BEST * found[0].median_us
            if near and not cand.cfg.u_smem and cand.name not in {c.name for c in out}:
                out.append(cand)
    for knobs in OTHERS:
        knobs = dict(knobs)
        wl = Conv2dWorkload(1, 224, 224, 64, 64, dtype="int8", accum="int32", m=knobs.pop("m", 2))
        out.append(Candidate(wl, KernelConfig(**knobs, u_smem=False)))
    return out


def main(out: str, side: str) -> None:
    todo = candidates()
    if side == "new":
        build_plan(todo, Path(out) / "tune", KNOWN_DEVICES["h100"])
        for cand in todo:
            shutil.copytree(Path(out) / "tune" / cand.name, Path(out) / "ab" / f"new_{cand.name}")
    else:
        build_plan(todo, Path(out) / "ab", KNOWN_DEVICES["h100"], prefix="old_")


if __name__ == "__main__":
    main(*sys.argv[1:])
