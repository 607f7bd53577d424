"""This folder's b- side (README.md), built by the checkout on PYTHONPATH (9f66d34 with
variant_b.patch): python plan.py OUT PREFIX -- the fp16-accumulator lane picks with the tap
split and 64 channels per warp pair, with exchange_own (xown) added."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/ab_plan.py
from ab_plan import lane_picks  # noqa: E402

from wino_tvm.config import KNOWN_DEVICES  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

if __name__ == "__main__":
    picks = [Candidate(c.wl, c.cfg.with_(exchange_own=True)) for c in lane_picks()
             if c.wl.accum == "fp16" and c.cfg.tap_split == 2 and c.cfg.tb_n == 64
             and not c.cfg.exchange_own]
    build_plan(picks, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
