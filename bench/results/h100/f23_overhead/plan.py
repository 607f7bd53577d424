"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT   # the F(2, 3) kernel (st3) on the N=128 benchmark grids with fewer input
                       # channels (the same blocks, fewer chunks each), and a C split of one
                       # chunk a block beside an unsplit grid of as many blocks"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

ST3 = KernelConfig.f23_config(3)
# (N, H, K): each with these C (16 channels a chunk)
GRIDS = {(128, 28, 128): (16, 32, 64, 128, 256), (128, 14, 256): (16, 64, 256, 512),
         (128, 7, 512): (16, 128, 512)}


def fp16(n: int, h: int, c: int, k: int) -> Conv2dWorkload:
    return Conv2dWorkload(n, h, h, c, k, dtype="fp16", m=2, accum="fp32")


def cases() -> list[Candidate]:
    out = [Candidate(fp16(n, h, c, k), ST3) for (n, h, k), cs in GRIDS.items() for c in cs]
    # 812 blocks of one chunk each: unsplit, and split in clusters of two
    out.append(Candidate(fp16(64, 28, 32, 128), KernelConfig.f23_config(3, c_split=2)))
    return out


if __name__ == "__main__":
    build_plan(cases(), Path(sys.argv[1]), KNOWN_DEVICES["h100"])
