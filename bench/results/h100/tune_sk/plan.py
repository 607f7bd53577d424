"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # the benchmark's C >= 128 workloads with fp32 accumulators, plain and
                       # with the whole epilogue: the F(2, 3) kernel's persistent configs on
                       # the stream-K schedule and not (both ring depths), beside the logged
                       # pick (the same run's baseline)"""

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, picks_beside  # noqa: E402

from wino_tvm.config import F23_STAGES, KernelConfig  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

F23 = [KernelConfig.f23_config(stages, persist=True, stream_k=stream_k)
       for stream_k, stages in itertools.product((False, True), F23_STAGES)]


def cases() -> list[Candidate]:
    return picks_beside(F23, lambda wl: wl.c >= 128 and wl.accum == "fp32")


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), H100)
