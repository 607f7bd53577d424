"""Run 1 (run1/tune.jsonl), per case: the current pick (mma.sync or sync-free, measured again in
the same run), the best wgmma lane config, and the pick's geometry with wgmma where it is one.
Runs 2 and 5 (ab.jsonl): each config under run 1's template (old_) and the change (new_),
and in run 2 each case's pick.
python compare.py > compare.txt"""

import json
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    cases = defaultdict(list)
    for line in (HERE / "run1" / "tune.jsonl").read_text().splitlines():
        r = json.loads(line)
        cases[(r["workload_key"], r["accum"], r["epilogue"])].append(r)
    wrong = sum(1 for rs in cases.values() for r in rs if r["status"] == "ok" and not
                (r["rel_l2_err"] is not None and r["status"] == "ok"))
    print(f"{sum(map(len, cases.values()))} records; not ok: "
          f"{sum(1 for rs in cases.values() for r in rs if r['status'] != 'ok')} {wrong}")
    print(f"{'case':48} {'pick us':>8} {'wg us':>8} {'ratio':>6}  best wg config; pick's twin")
    for (key, accum, epi), rs in cases.items():
        ok = [r for r in rs if r["status"] == "ok"]
        picks = [r for r in ok if "-wg" not in r["config"]]
        wg = sorted((r for r in ok if "-wg" in r["config"]), key=lambda r: r["median_us"])
        if not picks or not wg:
            continue
        pick = picks[0]
        twin_name = pick["config"].replace("-lane-", "-lane-wg-")
        twin = [r for r in wg if r["config"] == twin_name]
        twin_text = (f"{pick['median_us'] / twin[0]['median_us']:.2f}x" if twin else "-")
        tail = wg[0]["config"].split("-pb-")[1]
        case = f"{key} {accum}{' +epi' if epi else ''}"
        print(f"{case:48} {pick['median_us']:8.1f} {wg[0]['median_us']:8.1f} "
              f"{pick['median_us'] / wg[0]['median_us']:5.2f}x  {wg[0]['config'].split('-')[4]}-"
              f"{wg[0]['config'].split('-')[5]} {tail}; {twin_text}")


def ab(run: str) -> None:
    runs = {}
    for line in (HERE / run / "ab.jsonl").read_text().splitlines():
        r = json.loads(line)
        side, name = r["artifact"].split("_", 1)
        runs[(side, name)] = r
    print(f"\n{run}: {len(runs)} records, correct {sum(r['correct'] for r in runs.values())}")
    print(f"{'config':96} {'old us':>7} {'new us':>7} {'new/old':>7} {'pick us':>7}")
    def case(name: str) -> tuple[str, str]:  # (workload key, accumulator) of an artifact
        parts = name.split("-")
        return parts[0], parts[2]

    picks = {case(name): r for (side, name), r in runs.items() if side == "pick"}
    for (side, name), old in sorted(runs.items()):
        if side != "old":
            continue
        new = runs[("new", name)]
        pick = f"{picks[case(name)]['median_us']:7.1f}" if case(name) in picks else "      -"
        print(f"{name:96} {old['median_us']:7.1f} {new['median_us']:7.1f} "
              f"{old['median_us'] / new['median_us']:6.2f}x {pick}")


if __name__ == "__main__":
    main()
    ab("run2")
    ab("run5")
