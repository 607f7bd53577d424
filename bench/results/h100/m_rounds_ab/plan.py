"""Build the exploration of M staged in rounds (KernelConfig.m_rounds, reconstructor.full), CPU
side: per benchmark workload the int8 pick (16/64/64 ul2) with m_rounds 1, 2 and 4, and copies
of the rounds kernels with `__launch_bounds__(128, B)` written into program.cu by hand (-lbB):
ptxas then caps the registers at 65536 / (128 B).

python bench/results/h100/m_rounds_ab/plan.py .gpu/mr
"""

import shutil
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

PICK = dict(tb_m=16, tb_n=64, tb_k=64, fusion="full", u_smem=False)
ROUNDS = (1, 2, 4)
BOUNDS = {2: (4,), 4: (4, 5)}  # m_rounds -> min blocks per SM told to ptxas
FULL = "__launch_bounds__(128) winograd_full_kernel"


def candidates() -> list[Candidate]:
    return [Candidate(Conv2dWorkload(*shape, dtype="int8", accum="int32", m=2),
                      KernelConfig(**PICK, m_rounds=rounds))
            for shape in BENCH_WORKLOADS for rounds in ROUNDS]


def main(out: str) -> None:
    todo = candidates()
    ab = Path(out) / "ab"
    build_plan(todo, ab, KNOWN_DEVICES["h100"])
    for cand in todo:
        for blocks in BOUNDS.get(cand.cfg.m_rounds, ()):
            copy = ab / f"{cand.name}-lb{blocks}"
            shutil.copytree(ab / cand.name, copy, ignore=shutil.ignore_patterns("wino_bench"))
            program = copy / "program.cu"
            text = program.read_text()
            if text.count(FULL) != 1:
                raise SystemExit(f"{program}: expected one {FULL}")
            program.write_text(text.replace(FULL, FULL.replace("(128)", f"(128, {blocks})")))


if __name__ == "__main__":
    main(*sys.argv[1:])
