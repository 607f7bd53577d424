"""Per case of run1/tune.jsonl: the pick (no TMA) and the fastest TMA twin, same run."""

import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]
cases: dict[tuple, list[dict]] = {}
for r in rows:
    if r["status"] == "ok":
        cases.setdefault((r["workload_key"], r["accum"], r["epilogue"]), []).append(r)
print(f"{len(rows)} records, {sum(r['status'] == 'ok' for r in rows)} ok")
for (key, accum, epilogue), found in sorted(cases.items()):
    plain = min((r for r in found if "-tma" not in r["config"]), key=lambda r: r["median_us"])
    tma = min((r for r in found if "-tma" in r["config"]), key=lambda r: r["median_us"])
    name = f"{key} {accum}{' +epi' if epilogue else ''}"
    short = tma["config"].split("pad16-pb-")[-1]
    tb_k = tma["config"].split("tbk")[1].split("-")[0]
    print(f"{name:36s} pick {plain['median_us']:7.1f}  best TMA {tma['median_us']:7.1f} "
          f"{plain['median_us'] / tma['median_us']:.3f}x  ({short}, tbk{tb_k})")
