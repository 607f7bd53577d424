"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT [PREFIX]   # the benchmark's C >= 128 workloads with fp32 accumulators,
                                # plain and with the whole epilogue: the F(2, 3) kernel's
                                # persistent configs (both ring depths, stream-K or not) and the
                                # C split's, each with compact GEMM rows and without, beside the
                                # logged pick; with PREFIX only the plain cases, as one side of
                                # ../f23_rows/'s A/B"""

import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, picks_beside  # noqa: E402

from wino_tvm.config import F23_STAGES, KernelConfig  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

F23 = [KernelConfig.f23_config(stages, persist=True, stream_k=stream_k, compact_rows=compact)
       for stream_k, compact, stages in itertools.product((False, True), (False, True),
                                                          F23_STAGES)]
C_SPLIT = [KernelConfig.f23_config(stages, c_split=2, compact_rows=compact)
           for compact, stages in itertools.product((False, True), F23_STAGES)]


def cases() -> list[Candidate]:
    return picks_beside(F23 + C_SPLIT, lambda wl: wl.c >= 128 and wl.accum == "fp32")


if __name__ == "__main__":
    prefix = sys.argv[2] if len(sys.argv) > 2 else None
    chosen = [c for c in cases() if prefix is None or not c.wl.epilogue]
    build_plan(chosen, Path(sys.argv[1]), H100, prefix=prefix)
