"""Build the tuning batch that measures the channel split (KernelConfig.k_split) against the
current bests in one run (CPU side, TVM, one process): for each C=K=64 benchmark workload and
each case (fp16 with fp16 / fp32 accumulators, int8; fp16 also with the bias+residual+relu
epilogue), the logged best config (measured again: the baseline) and the split configs of
SPLITS. Reads tuning_logs/h100.jsonl as it stood at this run (2546 lines).

python bench/results/h100/k_split/plan.py .gpu/k_split
"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import best_config
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

PB = KernelConfig(fusion="full", persist=True)
# (dtype, accum, split configs (tb_m, tb_n, k_split, ot_channels)): tb_n is one group's share.
SPLITS = (
    ("fp16", "fp16", ((32, 32, 2, 2), (32, 32, 2, 1), (16, 32, 2, 2))),
    ("fp16", "fp32", ((16, 32, 2, 2), (16, 32, 2, 1))),
    ("int8", "int32", ((16, 16, 2, 1), (16, 16, 4, 1), (16, 16, 4, 2))),
)


def candidates() -> list[Candidate]:
    out = []
    for shape in (s for s in BENCH_WORKLOADS if s[3] == 64):
        for dtype, accum, splits in SPLITS:
            epilogues = ((), FULL_EPILOGUES[1]) if dtype == "fp16" else ((),)
            for epilogue in epilogues:
                probe = Conv2dWorkload(*shape, dtype=dtype, accum=accum, epilogue=epilogue)
                found = best_config(TUNING_LOG, probe, "h100", fusion="full")
                if found is not None:
                    cfg, record = found
                    out.append(Candidate(dataclasses.replace(probe, m=record["m"]), cfg))
                wl = dataclasses.replace(probe, m=2)
                out += [Candidate(wl, PB.with_(tb_m=tb_m, tb_n=tb_n, tb_k=wl.c, k_split=k,
                                               ot_channels=oc))
                        for tb_m, tb_n, k, oc in splits]
    return out


def main(out: str) -> None:
    build_plan(candidates(), Path(out), KNOWN_DEVICES["h100"])


if __name__ == "__main__":
    main(*sys.argv[1:])
