"""Build this folder's device work, CPU side (README.md), with the checkout whose wino_tvm is on
PYTHONPATH (tail_split=2 and 4 need tail_split.patch applied to it; reverted since):
  python plan.py OUT PREFIX [SPLIT]  # one side of the A/B: every plain fp16 benchmark case
                                     # whose logged pick is a stacked wgmma kernel without the
                                     # tap split, that pick with tail_split=SPLIT (1: as logged,
                                     # which the base checkout builds too)
  python plan.py OUT                 # the tuning run: those picks and their tail_split 2 and 4
                                     # twins, plain and with the epilogue, where the H100 takes
                                     # them"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/ for tune_cases

from tune_cases import H100, logged_cases  # noqa: E402

from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402


def splittable(cfg) -> bool:
    """Whether the tail split applies: a stacked wgmma lane kernel without the tap split."""
    return cfg.lane and cfg.stack and cfg.wgmma and cfg.tap_split == 1


def cases(splits: tuple[int, ...], plain_only: bool) -> list[Candidate]:
    out = []
    for wl, logged in logged_cases():
        if not logged or not splittable(logged[0]) or (plain_only and wl.epilogue):
            continue
        for split in splits:
            cfg = logged[0] if split == 1 else logged[0].with_(tail_split=split)
            if not cfg.problems(wl, H100):
                out.append(Candidate(wl, cfg))
    return out


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3, 4):
        sys.exit("usage: python plan.py OUT [PREFIX [SPLIT]]")
    if len(sys.argv) == 2:
        chosen, prefix = cases((1, 2, 4), plain_only=False), None
    else:
        split = int(sys.argv[3]) if len(sys.argv) == 4 else 1
        chosen, prefix = cases((split,), plain_only=True), sys.argv[2]
    build_plan(chosen, Path(sys.argv[1]), H100, prefix=prefix)
