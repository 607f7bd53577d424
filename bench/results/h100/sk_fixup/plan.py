"""Build one side of this folder's A/B (README.md), CPU side, with the checkout whose wino_tvm is
on PYTHONPATH:
  python plan.py OUT PREFIX   # the F(2, 3) kernel's persistent st4 config with and without
                              # stream-K at N=128 14², 28², 7² and N=32 14², plain"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

SHAPES = [(128, 14, 14, 256, 256), (128, 28, 28, 128, 128), (128, 7, 7, 512, 512),
          (32, 14, 14, 256, 256)]
CONFIGS = [KernelConfig.f23_config(4, persist=True, stream_k=stream_k)
           for stream_k in (False, True)]


def cases() -> list[Candidate]:
    return [Candidate(Conv2dWorkload(*shape, dtype="fp16", m=2, accum="fp32"), cfg)
            for shape in SHAPES for cfg in CONFIGS]


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
