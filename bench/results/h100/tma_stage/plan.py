"""Build this folder's device work, CPU side (README.md), in a checkout with variant.patch
applied:
  python plan.py OUT   # copies_once/plan.py's 47 configs with the TMA staging, as b-*; each
                       # program.cu's forward launch gets x's tensor map as its first argument"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "copies_once"))
from plan import H100, build_plan, cases  # noqa: E402

LAUNCH = re.compile(r"(wino_lane_forward<<<[^>]*>>>\()x, U")

if __name__ == "__main__":
    out = Path(sys.argv[1])
    build_plan(cases(), out, H100, prefix="b-")
    for program in out.glob("b-*/program.cu"):
        text, n = LAUNCH.subn(r"\1wino_lane_x_map(x), x, U", program.read_text())
        if n != 1:
            raise SystemExit(f"{program}: {n} forward launches")
        program.write_text(text)
