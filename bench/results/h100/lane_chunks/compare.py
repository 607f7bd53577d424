"""Each sweep case's best lane config against its baseline measured in the same run: the
current pick where it is not a lane config (C >= 128), else the lane pick, which stages halves
in 2 buffers (C = 64). python3 compare.py > compare.txt"""

import json
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
# run 1's 3-buffer candidates ran with the patch-ring bug (wrong); run 2 measured them again
SWEEPS = {"C >= 128, 2 buffers (run 1)": ["run1/tune128.jsonl"],
          "C >= 128, 3 buffers (run 2)": ["run2/tune128_st3.jsonl"],
          "C = 64 (run 2)": ["run2/tune64.jsonl"]}


def is_lane(r: dict) -> bool:
    return "-lane" in r["config"]


def knobs(r: dict) -> str:
    """The config name after m (and tbm16, which every lane config has)."""
    return r["config"].split("-m2-")[1].removeprefix("tbm16-")


def baseline(rows: list[dict]) -> dict | None:
    picks = [r for r in rows if not is_lane(r)]
    halves = [r for r in rows if is_lane(r) and "-st" not in r["config"]
              and f"-tbk{r['workload']['C'] // 2}-" in r["config"]]
    return (picks or halves or [None])[0]


for title, files in SWEEPS.items():
    cases = defaultdict(list)
    for name in files:
        path = HERE / name
        if not path.is_file():
            continue
        for line in open(path):
            r = json.loads(line)
            if "-st3" in r["config"] and name == "run1/tune128.jsonl":
                continue
            cases[(r["workload_key"], r["accum"], r["epilogue"])].append(r)
    print(f"## {title}")
    print(f"{'workload':24s} {'acc':4s} {'epilogue':17s} {'base us':>8s} {'lane us':>8s} "
          f"{'ratio':>6s}  best lane config (wrong/all lane)  baseline")
    for (key, accum, epilogue), rows in sorted(cases.items()):
        ok = sorted((r for r in rows if is_lane(r) and r["status"] == "ok"),
                    key=lambda r: r["median_us"])
        base = baseline([r for r in rows if r["status"] == "ok"])
        wrong = sum(r["status"] != "ok" for r in rows if is_lane(r))
        best = ok[0] if ok else None
        base_us = f"{base['median_us']:8.1f}" if base else f"{'-':>8s}"
        best_us = f"{best['median_us']:8.1f}" if best else f"{'-':>8s}"
        ratio = (f"{base['median_us'] / best['median_us']:5.2f}x" if base and best
                 else f"{'':6s}")
        print(f"{key:24s} {accum:4s} {epilogue or '-':17s} {base_us} {best_us} {ratio}  "
              f"{knobs(best) if best else '-'} ({wrong}/{sum(map(is_lane, rows))})  "
              f"{knobs(base) if base else '-'}")
    print()
