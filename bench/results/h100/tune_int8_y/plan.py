"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT       # int8 with an int8 y at the benchmark's C = 64 workloads (lane kernel,
                           # fp16 accumulators): at N=1 448²-960² every stacked config the H100
                           # takes; elsewhere the six fastest logged configs of the fp16 case and of
                           # the int8 f32-y case, and the stacked configs with three buffers
  python plan.py OUT ncu   # the 960² artifacts ncu profiles: a- the int8-y pick of bench_full/,
                           # b- the fp16 pick, c- the int8 twin of the fp16 pick"""

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # bench/tune_cases.py
from tune_cases import H100, fitting, logged_cases, stacked_space  # noqa: E402

from wino_tvm.config import KernelConfig  # noqa: E402
from wino_tvm.suites import TUNING_LOG  # noqa: E402
from wino_tvm.tune.best import latest, matching  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.records import read_records  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

FASTEST = 6
STACKED_ST3 = [KernelConfig.lane_config(tb_n, tb_k, 4, k_split, 3, True, tap_split, True,
                                        stack=True)
               for tb_n, tb_k, k_split, tap_split in ((32, 64, 2, 1), (32, 32, 2, 1),
                                                      (64, 32, 1, 2))]
WHOLE_SPACE_SIDES = (448, 640, 960)


def _int8_logged(wl) -> list[KernelConfig]:
    """The lane configs logged for wl's int8 f32-y twin, fastest first."""
    f32_y = dataclasses.replace(wl, out="fp32")
    found = sorted(matching(latest(read_records(TUNING_LOG)), f32_y, "h100", 2, "full"),
                   key=lambda r: r.median_us)
    return [c for c in (KernelConfig.parse(r.config)[1] for r in found) if c.lane]


def cases() -> list[Candidate]:
    out = []
    for wl, configs in logged_cases(channels=64):
        if wl.accum != "fp16" or wl.epilogue:
            continue
        int8 = dataclasses.replace(wl, dtype="int8", out="int8")
        picks = _int8_logged(int8)[:FASTEST] + [c for c in configs if c.lane][:FASTEST]
        if wl.n == 1 and wl.h in WHOLE_SPACE_SIDES:
            out += fitting(int8, picks + [c.cfg for c in stacked_space(int8)])
        else:
            out += fitting(int8, picks + STACKED_ST3)
    return out


def ncu_cases() -> list[Candidate]:
    """a- the int8-y pick at 960² (the f32 y's), b- the fp16 pick, c- the fp16 pick's int8 twin."""
    for wl, configs in logged_cases(channels=64):
        if wl.accum == "fp16" and not wl.epilogue and wl.h == 960:
            int8 = dataclasses.replace(wl, dtype="int8", out="int8")
            return [Candidate(int8, _int8_logged(int8)[0]), Candidate(wl, configs[0]),
                    Candidate(int8, configs[0])]
    raise SystemExit("no logged 960² case")


if __name__ == "__main__":
    if sys.argv[2:] == ["ncu"]:
        for prefix, cand in zip("abc", ncu_cases(), strict=True):
            build_plan([cand], Path(sys.argv[1]) / prefix, H100, prefix=f"{prefix}-")
    else:
        build_plan(cases(), Path(sys.argv[1]), H100)
