"""The issue's targets from a final benchmark run's results.jsonl, and each variant against the
run before it: python3 targets.py RUN PREVIOUS (folders beside this script, e.g. bench_full
bench_full_3d37e7f; TVM-free, no GPU). Each run's targets.txt is its output."""

import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[2]))
from wino_tvm.report import BEST_BASELINE_ERROR, cudnn_best, read_lines  # noqa: E402

RUN, PREVIOUS = sys.argv[1:]
FLOOR_960_US = 79.0  # x + y at 960² (236 MB) at the ~3.0 TB/s copy bandwidth measured before


def load(folder: Path) -> list[dict]:
    """A run's records: results.jsonl, or results.jsonl.gz in a superseded run's folder."""
    path = folder / "results.jsonl"
    return [json.loads(line) for line in read_lines(path if path.is_file() else
                                                    path.with_suffix(".jsonl.gz"))]


def shape(r: dict) -> str:
    w = r["workload"]
    return f"N{w['N']}_H{w['H']}_C{w['C']}"


def accum(r: dict) -> str:
    return r["config"].split("-")[1]


rows = [r for r in load(HERE / RUN) if r.get("status") == "ok"]
ours = [r for r in rows if r["fusion"] == "full"]
assert all(r["correct"] for r in ours), "a full variant is wrong"
shapes = sorted({shape(r) for r in rows}, key=lambda s: [int(t[1:]) for t in s.split("_")])
# cuDNN's best fp16 as the report takes it: the fastest fp16 baseline (torch's cudnn.benchmark
# pick, or the fastest engine configuration, fp32 or fp16 accumulation) within the accuracy bar.
# Runs before the engine records had only torch's pick.
by_shape: dict[str, list[dict]] = {}
for r in rows:
    by_shape.setdefault(shape(r), []).append(r)
cudnn = {s: cudnn_best(group, "fp16")["median_us"] for s, group in by_shape.items()}
cudnn_int8 = {}
for r in rows:
    if r["fusion"].startswith("cudnn_int8"):
        cudnn_int8[shape(r)] = min(cudnn_int8.get(shape(r), 1e30), r["median_us"])


def best(s: str, dtype: str, acc: str | None = None, epilogue: str = "", out: str | None = None):
    found = [r for r in ours if shape(r) == s and r["dtype"] == dtype
             and (acc is None or accum(r) == acc) and (r.get("epilogue") or "") == epilogue
             and (out is None or r.get("out") == out)]
    return min(found, key=lambda r: r["median_us"]) if found else None


print(f"{len(ours)} full variants, all correct; host-bound rows: "
      f"{sum(r.get('host_bound', False) for r in rows)}")
# The two thresholds' ratios to three places: to two, 1.498x prints as 1.50x.
print("\nfp16, C=K=64 N=1 (target >= 1.5x cuDNN best):")
for s in ("N1_H448_C64", "N1_H640_C64", "N1_H960_C64"):
    parts = []
    for acc in ("fp16", "fp32"):
        b = best(s, "fp16", acc)
        parts.append(f"{acc} acc. {b['median_us']:.1f} us = {cudnn[s] / b['median_us']:.3f}x")
    print(f"  {s}: cuDNN {cudnn[s]:.1f} us; " + "; ".join(parts))
LAST = load(HERE / PREVIOUS)


def last_ratio(s: str) -> float:
    """The last final run's best fp16 ratio against its own cuDNN best."""
    found = [r for r in LAST if shape(r) == s and r.get("status") == "ok"]
    base = cudnn_best(found, "fp16")["median_us"]
    top = min(r["median_us"] for r in found if r["fusion"] == "full" and r["dtype"] == "fp16"
              and not r.get("epilogue"))
    return base / top


print("\nfp16, every workload (target >= 1.0x), best of the accumulators and per accumulator:")
ratios = {"best": [], "fp16": [], "fp32": []}
for s in shapes:
    per = {acc: best(s, "fp16", acc) for acc in ("fp16", "fp32")}
    top = min((b for b in per.values() if b), key=lambda r: r["median_us"])
    ratios["best"].append((cudnn[s] / top["median_us"], s))
    for acc, b in per.items():
        if b:
            ratios[acc].append((cudnn[s] / b["median_us"], s))
    print(f"  {s:<14} cuDNN {cudnn[s]:7.1f} us, ours {top['median_us']:7.1f} us "
          f"({accum(top)} acc.) = {cudnn[s] / top['median_us']:.2f}x (last run "
          f"{last_ratio(s):.2f}x)")
for key, values in ratios.items():
    lo, hi = min(values), max(values)
    print(f"  {key}: {lo[0]:.2f}x ({lo[1]}) .. {hi[0]:.2f}x ({hi[1]})")
print("\ncuDNN's fp16 baselines, us (rel L2): torch's cudnn.benchmark pick; the fastest engine "
      "configuration with fp32 and with fp16 accumulation; the best within "
      f"{BEST_BASELINE_ERROR['fp16']:.3g}:")
for s in shapes:
    group = [r for r in by_shape[s] if r["dtype"] == "fp16" and r["fusion"].startswith("cudnn")]
    picks = [next((r for r in group if r["fusion"] == "cudnn"), None)]
    for acc in ("fp32", "fp16"):
        engines = [r for r in group if r["fusion"] == "cudnn_engines"
                   and f"compute={acc}" in r["config"]]
        picks.append(min(engines, key=lambda r: r["median_us"], default=None))
    print(f"  {s:<14} " + "  ".join(f"{r['median_us']:7.1f} ({r['rel_l2_err']:.1e})" if r else
                                      "      -" for r in picks) + f"  best {cudnn[s]:7.1f}")
b960 = best("N1_H960_C64", "fp16")
print(f"\nDRAM floor at 960²: {b960['median_us']:.1f} us = {b960['median_us'] / FLOOR_960_US:.3f}x "
      f"the {FLOOR_960_US:.0f} us floor")
print("\nint8 (target >= 1.5x cuDNN's int8 implicit GEMM, whose best writes an int8 y):")
int8_ratios: dict[str, list[float]] = {"fp32": [], "int8": []}
for s in shapes:
    parts = []
    for out in int8_ratios:
        b = best(s, "int8", out=out)
        if b:
            int8_ratios[out].append(cudnn_int8[s] / b["median_us"])
            parts.append(f"{out} y {b['median_us']:.1f} us = {cudnn_int8[s] / b['median_us']:.2f}x "
                         f"({b['config']})")
    if parts:
        print(f"  {s:14s} cuDNN int8 {cudnn_int8[s]:6.1f} us\n    " + "\n    ".join(parts))
for out, ratios in int8_ratios.items():
    print(f"  every workload, {out} y: {min(ratios):.2f}x .. {max(ratios):.2f}x")
print("\nint8 accuracy (rel L2, m=2, f32 y):")
for acc in ("int32", "fp16", "fp32"):
    errs = [r["rel_l2_err"] for r in ours if r["dtype"] == "int8" and accum(r) == acc
            and r["config"].split("-")[2] == "m2" and r.get("out") == "fp32"]
    if errs:
        print(f"  {acc} acc.: {min(errs):.2e} .. {max(errs):.2e}")
print("\nfp16 accuracy (rel L2, m=2 / m=4):")
for acc in ("fp16", "fp32"):
    for m in (2, 4):
        errs = {}
        for r in ours:
            if r["dtype"] == "fp16" and accum(r) == acc and r["m"] == m and not r.get("epilogue"):
                errs.setdefault(r["workload"]["C"], []).append(r["rel_l2_err"])
        if errs:
            print(f"  {acc} acc. m={m}: " + ", ".join(
                f"C={c} {min(v):.2e}-{max(v):.2e}" for c, v in sorted(errs.items())))
print("\nepilogue (bias,residual,relu) cost, best with minus best without:")
for s in shapes:
    parts = []
    for acc in ("fp16", "fp32"):
        plain, epi = best(s, "fp16", acc), best(s, "fp16", acc, "bias,residual,relu")
        if plain and epi:
            parts.append(f"{acc} {epi['median_us'] - plain['median_us']:+.1f} us")
    print(f"  {s:<14} " + ", ".join(parts))


def key(r: dict) -> tuple:
    return shape(r), r["config"], r.get("epilogue") or "", r.get("out")


old = {key(r): r for r in LAST if r["fusion"] == "full" and r.get("status") == "ok"}
print(f"\nagainst ../{PREVIOUS}/ (another run), old / new time per variant both ran:")
for label, keep in (("N=1", lambda r: r["workload"]["N"] == 1),
                    ("N>1", lambda r: r["workload"]["N"] > 1)):
    pairs = sorted(((old[key(r)]["median_us"] / r["median_us"], r) for r in ours
                    if keep(r) and key(r) in old), key=lambda pair: pair[0])
    values = [p for p, _ in pairs]
    print(f"  {label}: {len(values)} variants, {min(values):.2f}x .. {max(values):.2f}x, "
          f"median {statistics.median(values):.2f}x")
    for ratio, r in pairs[:2] + pairs[-3:]:
        print(f"    {ratio:.2f}x {shape(r)} {r['config']} {r.get('epilogue') or ''} "
              f"{old[key(r)]['median_us']:.1f} -> {r['median_us']:.1f} us")
print("\nint8 output against f32 output, same config (time ratio int8 / f32):")
f32 = {(shape(r), r["config"]): r["median_us"] for r in ours
       if r["dtype"] == "int8" and r.get("out") == "fp32" and not r.get("epilogue")}
int8_out = [r["median_us"] / f32[(shape(r), r["config"])] for r in ours
            if r["dtype"] == "int8" and r.get("out") == "int8" and (shape(r), r["config"]) in f32]
print(f"  {len(int8_out)} configs: {min(int8_out):.2f}x .. {max(int8_out):.2f}x")
