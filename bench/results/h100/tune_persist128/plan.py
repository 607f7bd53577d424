"""Build the follow-up of ../tune_one_chunk/ at C = 128 (N=32 and N=128 28², fp16, both
accumulators), CPU side: the three fastest persistent configs of that sweep with the whole
epilogue (bias, residual, relu) against the case's current epilogue pick, and the 16/32/128
persistent configs with unpadded rows (that sweep took padded ones only).

python bench/results/h100/tune_persist128/plan.py .gpu/tp128
"""

import dataclasses
import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import FULL_EPILOGUES
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
C128 = ((32, 28, 28, 128, 128), (128, 28, 28, 128, 128))
# The epilogue picks of tuning_logs/h100.jsonl before this sweep (at b8c7b44), both C = 128
# workloads.
EPILOGUE_PICKS = {"fp32": "tbm32-tbn32-tbk32-frag16x16x16-full-vec16-pad16",
                  "fp16": "tbm32-tbn64-tbk16-frag16x16x16-full-vec16-pad16-oc2"}
FASTEST = ("tbm16-tbn32-tbk128-frag16x16x16-full-vec16-pad16-pb-oc2",
           "tbm16-tbn32-tbk128-frag16x16x16-full-vec16-pad16-pb",
           "tbm16-tbn16-tbk128-frag16x16x16-full-vec16-pad16-pb-ks2-oc2")
UNPADDED = ("tbm16-tbn32-tbk128-frag16x16x16-full-vec16-pad0-pb-oc2",
            "tbm16-tbn32-tbk128-frag16x16x16-full-vec16-pad0-pb",
            "tbm16-tbn32-tbk128-frag8x32x16-full-vec16-pad0-pb-oc2")


def config(wl: Conv2dWorkload, name: str) -> KernelConfig:
    return KernelConfig.parse(f"{wl.dtype}-{wl.accum}-m2-{name}")[1]


def candidates() -> list[Candidate]:
    out = []
    for shape in C128:
        for accum in ("fp32", "fp16"):
            wl = Conv2dWorkload(*shape, dtype="fp16", accum=accum, m=2)
            fused = dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1])
            out.append(Candidate(fused, config(wl, EPILOGUE_PICKS[accum])))
            out += [Candidate(fused, config(wl, name)) for name in FASTEST]
            out += [Candidate(wl, config(wl, name)) for name in UNPADDED]
    return out


if __name__ == "__main__":
    build_plan(candidates(), Path(sys.argv[1]), H100)
