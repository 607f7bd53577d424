"""Build the same-run A/B of OTrans's interleaved tile rows (KernelConfig.ot_row_step), CPU side.

The candidates: every bench_full variant whose OTrans rows change, and every logged full-fusion
config with changed rows within 1.15x of its workload's best (could become the pick).
  python plan.py list candidates.txt          # at the new commit (needs ot_row_step)
  python plan.py build new_ OUT candidates.txt # at the new commit: new_<artifact>
  python plan.py build old_ OUT candidates.txt # at the commit before it: old_<artifact>
"""

import dataclasses
import json
import sys
from collections import defaultdict
from pathlib import Path

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import bench_full
from wino_tvm.tune.builder import build_plan
from wino_tvm.tune.space import Candidate
from wino_tvm.workload import Conv2dWorkload

LOG = Path(__file__).resolve().parents[4] / "tuning_logs" / "h100.jsonl"
NEAR_BEST = 1.15


def changed() -> list[Candidate]:
    cands = {c.name: c for c in (Candidate(wl, cfg) for wl, cfg in bench_full())
             if c.cfg.ot_row_step(c.wl) != 1}
    logged = defaultdict(dict)
    for line in LOG.read_text().splitlines():
        r = json.loads(line)
        if r["status"] == "ok" and r["fusion"] == "full":
            key = (r["workload_key"], r["dtype"], r["accum"], r.get("epilogue", ""))
            logged[key][r["config"]] = r
    for records in logged.values():
        best = min(r["median_us"] for r in records.values())
        for config, r in records.items():
            c = Candidate.from_config_name(r["workload"], config, r.get("epilogue", ""))
            if c.cfg.ot_row_step(c.wl) != 1 and r["median_us"] <= NEAR_BEST * best:
                cands.setdefault(c.name, c)
    return sorted(cands.values(), key=lambda c: c.name)


def main(argv: list[str]) -> None:
    if argv[0] == "list":
        Path(argv[1]).write_text("".join(json.dumps([dataclasses.asdict(c.wl), c.cfg.as_dict()])
                                         + "\n" for c in changed()))
        return
    _, prefix, out, listing = argv
    todo = []
    for wl, cfg in map(json.loads, Path(listing).read_text().splitlines()):
        todo.append(Candidate(Conv2dWorkload(**{**wl, "epilogue": tuple(wl["epilogue"])}),
                              KernelConfig(**cfg)))
    build_plan(todo, Path(out), KNOWN_DEVICES["h100"], prefix=prefix)


if __name__ == "__main__":
    main(sys.argv[1:])
