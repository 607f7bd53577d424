"""Build this folder's device work, CPU side (README.md):
  python plan.py OUT       # int8 with an int8 y at the benchmark's C = 64 workloads (lane kernel,
                           # fp16 accumulators): at N=1 448²-960² every stacked config the H100
                           # takes; elsewhere the six fastest logged configs of the fp16 case and of
                           # the int8 f32-y case, and the stacked configs with three buffers
  python plan.py OUT ncu   # the 960² artifacts ncu profiles: a- the int8-y pick of bench_full/,
                           # b- the fp16 pick, c- the int8 twin of the fp16 pick"""

import dataclasses
import importlib.util
import sys
from pathlib import Path

# ../tune_int8_lane/plan.py: its FASTEST and STACKED_ST3 (and bench/ on sys.path for tune_cases)
_spec = importlib.util.spec_from_file_location(
    "tune_int8_lane_plan", Path(__file__).resolve().parents[1] / "tune_int8_lane" / "plan.py")
tune_int8_lane = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tune_int8_lane)
from tune_cases import H100, fitting, logged_cases, stacked_space  # noqa: E402

from wino_tvm.config import KernelConfig  # noqa: E402
from wino_tvm.suites import TUNING_LOG  # noqa: E402
from wino_tvm.tune.best import latest, matching  # noqa: E402
from wino_tvm.tune.builder import build_plan  # noqa: E402
from wino_tvm.tune.records import read_records  # noqa: E402
from wino_tvm.tune.space import Candidate  # noqa: E402

FASTEST, STACKED_ST3 = tune_int8_lane.FASTEST, tune_int8_lane.STACKED_ST3
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
