"""This folder's b- side (README.md), built by the checkout on PYTHONPATH (9f66d34 with
variant_b.patch, which only lets the rules allow 16 warps): python plan.py OUT PREFIX -- each
fp16-accumulator lane pick with the tap split and 64 channels per warp pair, as 32 channels
per warp pair in two channel slices (k_split 2): 16 warps instead of 8, the same tile groups,
U and patches per block."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/ab_plan.py
from ab_plan import lane_picks  # noqa: E402

from wino_tvm.config import KNOWN_DEVICES  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

if __name__ == "__main__":
    picks = [Candidate(c.wl, c.cfg.with_(tb_n=32, k_split=2)) for c in lane_picks()
             if c.wl.accum == "fp16" and c.cfg.tap_split == 2 and c.cfg.tb_n == 64]
    build_plan(picks, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
