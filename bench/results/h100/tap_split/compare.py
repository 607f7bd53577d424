"""Each case of a run's sweep: its pick against the best of the new configs (those whose name
has every one of TOKENS, default ts2), same run.
Usage: python compare.py run1/tune.jsonl [TOKENS] > run1/compare.txt, e.g. TOKENS wg,ts2"""

import json
import sys
from collections import defaultdict


def main(path: str, tokens: list[str]) -> None:
    cases = defaultdict(dict)
    for line in open(path):
        r = json.loads(line)
        if r["status"] == "ok":
            cases[(r["workload_key"], r["accum"], r["epilogue"])][r["config"]] = r
    print(f"{'case':<52} {'pick µs':>8} {'best new µs':>11} {'ratio':>6}  best new config (pick)")
    for (key, accum, epilogue), runs in sorted(cases.items()):
        split = {c: r for c, r in runs.items() if set(tokens) <= set(c.split("-"))}
        picks = [r for c, r in runs.items() if c not in split]
        best = min(split.values(), key=lambda r: r["median_us"])
        short = lambda c: c.split("-vec16-pad16-")[1]  # noqa: E731
        case = key + " " + accum + (" " + epilogue if epilogue else "")
        if not picks:  # the pick was one of the new configs (a later run of the same name)
            print(f"{case:<52} {'-':>8} {best['median_us']:>11.1f} {'-':>6}  "
                  f"{best['config'].split('-')[4]} {short(best['config'])} (pick: one of these)")
            continue
        pick = picks[0]
        print(f"{case:<52} {pick['median_us']:>8.1f} {best['median_us']:>11.1f} "
              f"{pick['median_us'] / best['median_us']:>5.2f}x  "
              f"{best['config'].split('-')[4]} {short(best['config'])} "
              f"({pick['config'].split('-')[4]} {short(pick['config'])})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(",") if len(sys.argv) > 2 else ["ts2"])
