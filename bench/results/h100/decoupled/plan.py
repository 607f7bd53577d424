"""This folder's sides (README.md), built by the checkout on PYTHONPATH (9f66d34, no patch):
  python plan.py OUT PREFIX KIND -- each fp16-accumulator lane pick with the tap split and 64
channels per warp pair, as KIND: g8 (8 tile groups, two warpgroups on different ones, 32
channels per warp, no exchange; grid.y = 2) or ks2 (4 tile groups, the two warpgroups on the
same ones, one channel half each, no exchange)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/ab_plan.py
from ab_plan import lane_picks  # noqa: E402

from wino_tvm.config import KNOWN_DEVICES  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

KINDS = {"g8": dict(tb_n=32, tap_split=1, groups=8), "ks2": dict(tb_n=32, tap_split=1, k_split=2)}

if __name__ == "__main__":
    picks = [Candidate(c.wl, c.cfg.with_(**KINDS[sys.argv[3]])) for c in lane_picks()
             if c.wl.accum == "fp16" and c.cfg.tap_split == 2 and c.cfg.tb_n == 64]
    for c in picks:
        if c.cfg.problems(c.wl, KNOWN_DEVICES["h100"]):
            sys.exit(f"{c.name}: {c.cfg.problems(c.wl, KNOWN_DEVICES['h100'])}")
    build_plan(picks, Path(sys.argv[1]), KNOWN_DEVICES["h100"], prefix=sys.argv[2])
