"""Benchmark records -> derived numbers (TFLOP/s, bytes model, GB/s), markdown tables, a plot.

python -m wino_tvm.bench.report RESULTS.jsonl [MORE.jsonl ...] --out DIR   (writes report.md and
speedup.png into DIR). TVM-free and GPU-free; matplotlib only for the plot.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from wino_tvm.errors import WinoError
from wino_tvm.kernels import parse_config
from wino_tvm.workload import OUTPUTS

REPORT_FILE = "report.md"
PLOT_FILE = "speedup.png"
# Baselines are named by their fusion field: cudnn (PyTorch), cudnn_winograd, cudnn_int8, ...
BASELINE_PREFIX = "cudnn"
WINOGRAD_BASELINE = "cudnn_winograd"
# The most rel L2 error a baseline of this input dtype may have to count as cuDNN's best: for
# fp16 the issue's accuracy bar, 5x cuDNN fp16's own 2.1e-4 (fp32 accumulation), so that a
# faster, less accurate configuration (fp16 accumulation at C >= 128) does not set the pace
# our kernels are held to at that bar.
BEST_BASELINE_ERROR = {"fp16": 5 * 2.1e-4}
# Element bytes of x, w, y and the Winograd-domain V and M when a record does not say: the
# artifacts' defaults (fp16 accumulates in fp32, int8 in int32 and writes float y).
DEFAULT_ELEM_BYTES = {
    "fp16": {"x": 2, "w": 2, "y": 2, "V": 2, "M": 4},
    "int8": {"x": 1, "w": 1, "y": 4, "V": 1, "M": 4},
    "fp32": {"x": 4, "w": 4, "y": 4, "V": 4, "M": 4},
}
# Which Winograd-domain tensors make a DRAM round trip (written once, read once), per fusion.
ROUND_TRIPS = {
    "none": ("V", "M"),
    "syncfree": ("V", "M"),  # still four kernels; only the BGEMM's barriers change
    "shmem": ("M",),
    "llc": ("M",),
    "full": (),
}


def write_rows(out: Path, stem: str, rows: Sequence[Mapping], title: str,
               header: Sequence[str], cells: Callable[[Mapping], Sequence[str]]) -> None:
    """rows as out/STEM.jsonl, and as the markdown table out/STEM.md (title, header, cells(row)
    per row)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = [f"# {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")


def workload_key(wl: Mapping[str, int]) -> str:
    return f"N{wl['N']}_H{wl['H']}_W{wl['W']}_C{wl['C']}_K{wl['K']}"


def flops(wl: Mapping[str, int]) -> int:
    """Direct-convolution FLOPs of a 3x3 conv, the convention for effective TFLOP/s."""
    return 2 * wl["N"] * wl["H"] * wl["W"] * wl["C"] * wl["K"] * 9


def is_baseline(record: Mapping) -> bool:
    return str(record.get("fusion", "")).startswith(BASELINE_PREFIX)


def dram_bytes(record: Mapping) -> int | None:
    """Bytes through DRAM per call by the design brief's model (section 4), None if unknown.

    none/syncfree: x + 2|V| + 2|M| + y; shmem/llc: x + 2|M| + y; full: x + y; baselines:
    x + y + w; with |V| = alpha^2*ntiles*C*Ve and |M| = alpha^2*ntiles*K*Vm (ntiles unpadded).
    """
    wl, fusion = record["workload"], record.get("fusion")
    elem = {**DEFAULT_ELEM_BYTES.get(record.get("dtype"), {}), **record.get("elem_bytes", {})}
    if not {"x", "w", "y"} <= elem.keys():
        return None
    pixels = wl["N"] * wl["H"] * wl["W"]
    total = pixels * wl["C"] * elem["x"] + pixels * wl["K"] * elem["y"]
    if is_baseline(record):
        return total + 9 * wl["C"] * wl["K"] * elem["w"]
    m = record.get("m")
    if fusion not in ROUND_TRIPS or not m:
        return None
    alpha2 = (m + 2) ** 2
    ntiles = wl["N"] * math.ceil(wl["H"] / m) * math.ceil(wl["W"] / m)
    sizes = {"V": alpha2 * ntiles * wl["C"] * elem["V"], "M": alpha2 * ntiles * wl["K"] * elem["M"]}
    return total + sum(2 * sizes[name] for name in ROUND_TRIPS[fusion])


def derive(record: Mapping) -> dict:
    """The record with tflops, dram_bytes and gbps (re)computed from its median_us."""
    out = dict(record)
    us = record.get("median_us")
    out["dram_bytes"] = dram_bytes(record)
    timed = isinstance(us, int | float) and us > 0
    out["tflops"] = flops(record["workload"]) / (us * 1e-6) / 1e12 if timed else None
    out["gbps"] = out["dram_bytes"] / (us * 1e-6) / 1e9 if timed and out["dram_bytes"] else None
    return out


def read_lines(path: Path) -> list[str]:
    """The lines of a JSON-lines file, gzipped where its name ends in .gz (the superseded
    benchmarks' records)."""
    path = Path(path)
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    return text.splitlines()


def load_records(paths: Iterable[Path]) -> list[dict]:
    """All records of the JSON-lines files (gzipped or not), derived numbers recomputed."""
    records = []
    for path in paths:
        for number, line in enumerate(read_lines(path), 1):
            if not line.strip():
                continue
            try:
                records.append(derive(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise WinoError(f"{path}:{number}: not a benchmark record ({exc})") from exc
    return records


def usable(record: Mapping) -> bool:
    """Correct and timed: the only records that enter ratios and the plot."""
    return bool(record.get("correct")) and bool(record.get("median_us"))


def cudnn_best(records: Iterable[Mapping], dtype: str) -> Mapping | None:
    """The fastest correct cuDNN baseline of this input dtype (records of one workload) within
    BEST_BASELINE_ERROR."""
    bar = BEST_BASELINE_ERROR.get(dtype, math.inf)
    candidates = [r for r in records if is_baseline(r) and r.get("dtype") == dtype and usable(r)
                  and (r.get("rel_l2_err") or 0.0) <= bar]
    return min(candidates, key=lambda r: r["median_us"], default=None)


def cudnn_winograd(records: Iterable[Mapping]) -> Mapping | None:
    candidates = [r for r in records if r.get("fusion") == WINOGRAD_BASELINE and usable(r)]
    return min(candidates, key=lambda r: r["median_us"], default=None)


def speedups(record: Mapping, group: Sequence[Mapping]) -> tuple[float | None, float | None]:
    """(cuDNN best time / this time, cuDNN Winograd time / this time); > 1 means faster."""
    if not usable(record):
        return None, None
    best, wino = cudnn_best(group, record.get("dtype")), cudnn_winograd(group)
    return tuple(ref["median_us"] / record["median_us"] if ref else None for ref in (best, wino))


def series_label(record: Mapping) -> str:
    """Plot series: the config for our kernels (it encodes dtype, m and fusion), else the
    baseline's name (whose configurations the plot reduces to the fastest). A fused epilogue
    shows as '+bias,relu', an output other than the dtype's default as '->int8'."""
    if is_baseline(record):
        return str(record["fusion"])
    epilogue, out = record.get("epilogue"), record.get("out")
    default_out = OUTPUTS.get(record.get("dtype"), (out,))[0]
    return (str(record.get("config")) + (f" +{epilogue}" if epilogue else "")
            + (f" ->{out}" if out and out != default_out else ""))


def row_label(record: Mapping) -> str:
    """Table row: the series, and for a baseline also its configuration."""
    label = series_label(record)
    return f"{label}: {record.get('config')}" if is_baseline(record) else label


def by_workload(records: Iterable[Mapping]) -> dict[str, list[Mapping]]:
    groups: dict[str, list[Mapping]] = {}
    for record in records:
        groups.setdefault(workload_key(record["workload"]), []).append(record)
    # Smallest problem first, as the tables and the plot read best that way.
    return dict(sorted(groups.items(), key=lambda kv: (flops(kv[1][0]["workload"]), kv[0])))


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _status(record: Mapping) -> str:
    """yes, **WRONG**, or why there is no result (cuDNN's refusal, a build error, ...)."""
    if usable(record):
        return "yes"
    status = record.get("status", "wrong")
    if status in ("ok", "wrong"):
        return "**WRONG**"
    error = (str(record.get("error") or "").splitlines() or [""])[0][:160]
    return f"{status}: {error}".replace("|", "/")


HOST_BOUND_MARK = " †"


def workload_table(group: Sequence[Mapping]) -> str:
    """One markdown table: every record of one workload, fastest correct first."""
    rows = ["| variant | dtype | m | µs | TFLOP/s | GB/s (model MB) | rel L2 err | max abs err | "
            "correct | vs cuDNN best | vs cuDNN Winograd |",
            "|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|"]
    ordered = sorted(group, key=lambda r: (not usable(r), r.get("median_us") or math.inf))
    for r in ordered:
        best, wino = speedups(r, group)
        model = r.get("dram_bytes")
        gbps = _num(r.get("gbps"), ".0f") + (f" ({model / 1e6:.3g})" if model else "")
        rows.append(
            f"| {row_label(r)} | {r.get('dtype')} | {r.get('m') or '-'} | "
            f"{_num(r.get('median_us'), '.1f')}{HOST_BOUND_MARK if r.get('host_bound') else ''} | "
            f"{_num(r.get('tflops'), '.1f')} | {gbps} | "
            f"{_num(r.get('rel_l2_err'), '.2e')} | {_num(r.get('max_abs_err'), '.2e')} | "
            f"{_status(r)} | {_ratio(best)} | {_ratio(wino)} |"
        )
    return "\n".join(rows)


def markdown(records: Sequence[Mapping]) -> str:
    """The whole report: a header, then one section and table per workload."""
    devices = sorted({str(r.get("device")) for r in records})
    commits = sorted({str(r.get("commit")) for r in records})
    parts = [
        "# Winograd benchmark",
        "",
        f"Device: {', '.join(devices)}. Commits: {', '.join(commits)}.",
        "TFLOP/s count direct-convolution FLOPs (2*N*H*W*C*K*9). GB/s is the bytes model of "
        "the design brief (section 4) over the median time; model MB in parentheses. "
        "'vs cuDNN best' is the fastest correct cuDNN result of the same input dtype divided "
        "by this time (> 1: faster), for fp16 among those with a rel L2 error of at most "
        f"{BEST_BASELINE_ERROR['fp16']:.3g} (the accuracy bar); 'vs cuDNN Winograd' likewise "
        f"against {WINOGRAD_BASELINE}. Wrong results are listed but not timed. "
        f"{HOST_BOUND_MARK.strip()}: host-bound in every timing attempt (the GPU waited for the "
        "host, so the time is an upper bound).",
    ]
    for key, group in by_workload(records).items():
        wl = group[0]["workload"]
        parts += ["", f"## {key} ({flops(wl) / 1e9:.3g} GFLOP)", "", workload_table(group)]
    return "\n".join(parts) + "\n"


def family(record: Mapping) -> str:
    """The kernel family of one of our records (its config name says), else "other"."""
    try:
        return parse_config(str(record.get("config")))[1].FAMILY
    except WinoError:
        return "other"


def plot_series(records: Sequence[Mapping]) -> dict[tuple[str, str], dict[int, float]]:
    """(input dtype, family) -> workload index (in by_workload order) -> the family's best
    speedup there over cuDNN's best of that dtype."""
    series: dict[tuple[str, str], dict[int, float]] = {}
    for i, group in enumerate(by_workload(records).values()):
        for r in group:
            best, _ = speedups(r, group)
            if best is not None and not is_baseline(r):
                points = series.setdefault((str(r["dtype"]), family(r)), {})
                points[i] = max(best, points.get(i, 0.0))
    return series


def plot(records: Sequence[Mapping], path: Path) -> Path:
    """PNG: per input dtype a panel of grouped bars, per workload the best of each family
    against cuDNN's best (the line at 1)."""
    try:
        import matplotlib
    except ImportError:
        raise WinoError("the plot needs matplotlib: pip install matplotlib") from None
    matplotlib.use("Agg")  # files only; no display on the GPU machine or in CI
    import matplotlib.pyplot as plt

    keys = list(by_workload(records))
    series = plot_series(records)
    dtypes = sorted({dtype for dtype, _ in series}) or ["fp16"]
    fig, axes = plt.subplots(len(dtypes), 1, figsize=(max(6.0, 0.7 * len(keys) + 2),
                                                      3.2 * len(dtypes)), squeeze=False)
    for ax, dtype in zip(axes[:, 0], dtypes, strict=True):
        families = sorted(f for d, f in series if d == dtype)
        width = 0.8 / max(1, len(families))
        for n, fam in enumerate(families):
            points = series[(dtype, fam)]
            xs = [i - 0.4 + width * (n + 0.5) for i in points]
            ax.bar(xs, list(points.values()), width, label=fam)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(keys)), keys, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel(f"{dtype}: x cuDNN best")
        ax.grid(axis="y", alpha=0.3)
        if families:
            ax.legend(fontsize=7, ncol=len(families), loc="upper right")
    axes[0, 0].set_title("3x3 conv: each family's best over cuDNN's fastest correct result")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(records: Sequence[Mapping], out_dir: Path) -> dict[str, Path]:
    """Write report.md and speedup.png into out_dir; return their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    records = [derive(r) for r in records]
    md = out_dir / REPORT_FILE
    md.write_text(markdown(records))
    return {"markdown": md, "plot": plot(records, out_dir / PLOT_FILE)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.report", description=__doc__)
    p.add_argument("results", type=Path, nargs="+", help="JSON-lines files from wino_tvm.bench")
    p.add_argument("--out", type=Path, required=True, help="folder for report.md, speedup.png")
    args = p.parse_args(argv)
    try:
        records = load_records(args.results)
        if not records:
            raise WinoError(f"no records in {', '.join(map(str, args.results))}")
        paths = write_report(records, args.out)
    except (OSError, WinoError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {paths['markdown']} and {paths['plot']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
