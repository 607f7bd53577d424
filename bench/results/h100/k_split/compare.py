"""Same-run comparison of the channel split: per case (workload, dtype/accumulator, epilogue)
the logged best measured again (the baseline) against each split config of plan.py, with the
error of each (python3 compare.py [FOLDER], default this folder; TVM-free)."""

import json
import sys
from pathlib import Path

folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
cases: dict[tuple, list[dict]] = {}
for line in (folder / "k_split.jsonl").read_text().splitlines():
    r = json.loads(line)
    assert r["status"] == "ok", (r["config"], r["status"])
    cases.setdefault((r["workload_key"], r["dtype"], r["accum"], r["epilogue"]), []).append(r)


def short(config: str) -> str:
    return config.split("-m2-")[1].replace("-frag16x16x16-full-vec16-pad16", "")


best_ratios = []
print(f"{'case':<48} {'baseline':<26} {'us':>6}  split config: us (baseline / split), rel. L2")
for (key, dtype, accum, epilogue), rows in sorted(cases.items()):
    (base,) = [r for r in rows if "-ks" not in r["config"]]
    splits = sorted((r for r in rows if "-ks" in r["config"]), key=lambda r: r["median_us"])
    best_ratios.append((base["median_us"] / splits[0]["median_us"], key, dtype, accum, epilogue))
    case = f"{key} {dtype}/{accum}{' +epi' if epilogue else ''}"
    print(f"{case:<48} {short(base['config']):<26} {base['median_us']:6.1f}  "
          f"(rel. L2 {base['rel_l2_err']:.2e})")
    for r in splits:
        print(f"{'':<82}{short(r['config']):<26} {r['median_us']:6.1f} "
              f"({base['median_us'] / r['median_us']:.3f}x) {r['rel_l2_err']:.2e}")
print(f"\n{sum(len(v) for v in cases.values())} records, all correct. Best split against the "
      "baseline per case:")
for ratio, key, dtype, accum, epilogue in sorted(best_ratios):
    print(f"  {ratio:.3f}x {key} {dtype}/{accum}{' +epi' if epilogue else ''}")
