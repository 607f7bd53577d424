"""Build the tuning batch of the ot_channels axis (CPU side, TVM): every tuned config the
bench_full suite takes (not its fixed 32/32/32 tiles; an int8 output shares the fp32 output's
config), with its epilogue, at ot_channels 1 and 2, in one batch with its manifest. One process:
each `python -m wino_tvm.tune build` call would pay TVM's import (~40 s) for two candidates.

python bench/results/h100/tune_ot_channels/plan.py .gpu/tune_oc
"""

import sys
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, OT_CHANNELS
from wino_tvm.suites import FULL_TILES, bench_full
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate


def main(out: str) -> None:
    candidates = [Candidate(wl, cfg.with_(ot_channels=oc))
                  for wl, cfg in bench_full() if cfg != FULL_TILES and wl.out != "int8"
                  for oc in OT_CHANNELS]
    build_plan(candidates, Path(out), KNOWN_DEVICES["h100"])


if __name__ == "__main__":
    main(sys.argv[1])
