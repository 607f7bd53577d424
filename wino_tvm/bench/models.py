"""The model benchmark: real models in fp16 and channels_last, as PyTorch runs them (cuDNN)
and converted by wino_tvm.convert, in one process on one GPU (PyTorch; GPU side).

python -m wino_tvm.bench.models --out bench/h200/models [--models vgg16_n1,edsr_x2_360p]
    [--mode verify|autotune] [--record tuning_logs/h200.jsonl] [--iters 50]

Per model: eager and CUDA-graph latency of PyTorch in both memory formats (channels_last and
contiguous) and of the converted model, the speedup over the faster PyTorch format, the layers
converted and their share of the time, the output's difference from a float32 run (rel L2;
PSNR for images). Per converted convolution, its kernel against cuDNN on the same inputs; per
converted GroupNorm, its decision's times against PyTorch's on the model's activations.
Writes models.jsonl, models.md and models.png to --out; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import statistics
import sys
import traceback
from pathlib import Path

import torch

from .. import nn as wino_nn
from ..commit import commit_id
from ..runtime import cache
from ..runtime.choice import Policy
from ..runtime.dispatch import device_of
from ..runtime.layer import ConvKernel
from ..runtime.select import TIMING, Trial, cudnn_call, pool, timer, wino_call
from ..workload import Conv2dWorkload
from .zoo import CASES, Case, randomise


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def time_calls(call, iters: int, warmup: int = 3) -> float:
    """Median ms of call() by CUDA events, after warm-up."""
    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def call_memory_mb(call) -> float:
    """What one call allocates above what was allocated before it, at its peak: activations,
    and the kernels' scratch."""
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    call()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - before) / 2**20


def graphed(model: torch.nn.Module, x: torch.Tensor):
    """model(x) captured in a CUDA graph (after a warm-up on a side stream): its replay."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):
            model(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = model(x)
    return graph.replay, out


def accuracy(y: torch.Tensor, ref: torch.Tensor, image: bool) -> dict:
    """rel L2 against the float32 run, and for images the PSNR with the reference's range as
    the peak (random weights give no fixed pixel range)."""
    y, ref = y.double(), ref.double()
    finite = bool(torch.isfinite(y).all())
    err = float(((y - ref) ** 2).sum().sqrt() / (ref**2).sum().sqrt()) if finite else math.inf
    out = {"rel_l2_vs_fp32": err, "finite": finite}
    if image:
        mse = float(((y - ref) ** 2).mean())
        peak = float(ref.max() - ref.min())
        out["psnr_db"] = 10 * math.log10(peak**2 / mse) if mse > 0 and finite else math.inf
    return out


def model_input(case: Case) -> torch.Tensor:
    gen = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(case.input_shape, generator=gen, device="cuda")
    return x if case.name.startswith("edsr") else x * 2 - 1


def prebuild(base: torch.nn.Module, converted: torch.nn.Module, x: torch.Tensor,
             policy: Policy) -> None:
    """Every library the converted layers' decisions will time, built in parallel first (a
    decision builds only its own candidates)."""
    limits, arch = device_of(0)
    shapes: dict[str, tuple] = {}
    hooks = [module.register_forward_hook(
        lambda mod, inputs, out, name=name: shapes.__setitem__(name, tuple(inputs[0].shape)))
        for name, module in base.named_modules() if isinstance(module, torch.nn.Conv2d)]
    base(x)
    for hook in hooks:
        hook.remove()
    todo = {}
    for name, module in converted.named_modules():
        if isinstance(module, wino_nn.Conv2d) and name in shapes:
            n, c, h, w = shapes[name]
            layer = Conv2dWorkload(n, h, w, c, module.out_channels,
                                   epilogue=module.epilogue())
            for wl, cfg, _ in pool(layer, limits, policy):
                todo[(wl, cfg.name(wl))] = (wl, cfg)
    cache.build_all(todo.values(), arch)


def layer_rows(name: str, converted: torch.nn.Module, arch: str, l2: int) -> list[dict]:
    """Each converted layer's kernel against cuDNN on the same random inputs, in this run."""
    rows = []
    for layer, (n, h, w, ops), choice in wino_nn.choices(converted):
        conv = converted.get_submodule(layer)
        base = Conv2dWorkload(n, h, w, conv.in_channels, conv.out_channels, epilogue=ops)
        trial = Trial.of(base, l2)
        cudnn_us = timer().time(cudnn_call(trial, "relu" in ops), len(trial.xs),
                                TIMING)["median_us"]
        row = {"record": "layer", "model": name, "layer": layer, "workload": base.shape_dict(),
               "epilogue": ",".join(ops), "kernel": choice.name, "reason": choice.reason,
               "cudnn_us": cudnn_us}
        if choice.config is not None:
            kernel = ConvKernel(choice.wl, choice.config, arch, trial.w)
            row["wino_us"] = timer().time(wino_call(kernel, trial), len(trial.xs),
                                          TIMING)["median_us"]
            row["speedup"] = cudnn_us / row["wino_us"]
        rows.append(row)
    return rows


def norm_rows(name: str, converted: torch.nn.Module) -> list[dict]:
    """Each converted GroupNorm's decision per input shape: its times against PyTorch's."""
    rows = []
    for layer, module in converted.named_modules():
        if not isinstance(module, wino_nn.GroupNorm):
            continue
        for shape, choice in module.choices.items():
            row = {"record": "norm", "model": name, "layer": layer, "shape": list(shape),
                   "silu": module.silu, "wino": choice.wino, "reason": choice.reason,
                   "wino_us": choice.wino_us, "torch_us": choice.torch_us}
            if choice.wino_us and choice.torch_us:
                row["speedup"] = choice.torch_us / choice.wino_us
            rows.append(row)
    return rows


def run_case(case: Case, policy: Policy, iters: int) -> list[dict]:
    limits, arch = device_of(0)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    model = randomise(case.build()).eval()
    x = model_input(case)
    base = copy.deepcopy(model).cuda().half().to(memory_format=torch.channels_last)
    base_nchw = copy.deepcopy(model).cuda().half()
    converted = wino_nn.convert(copy.deepcopy(base), policy=policy, verbose=False)
    log(f"{case.name}: " + wino_nn.format_report(converted.wino_report).splitlines()[0])
    with torch.inference_mode():
        ref = copy.deepcopy(model).cuda().float()(x)
        x16 = x.half().contiguous(memory_format=torch.channels_last)
        x16_nchw = x.half().contiguous()
        base_out = base(x16)
        prebuild(base, converted, x16, policy)
        conv_out = converted(x16)  # decides every layer's kernel (measured)
        memory = {"torch": call_memory_mb(lambda: base(x16)),
                  "torch_nchw": call_memory_mb(lambda: base_nchw(x16_nchw)),
                  "wino": call_memory_mb(lambda: converted(x16))}
        eager = {"torch": time_calls(lambda: base(x16), iters),
                 "torch_nchw": time_calls(lambda: base_nchw(x16_nchw), iters),
                 "wino": time_calls(lambda: converted(x16), iters)}
        graph = {"torch": time_calls(graphed(base, x16)[0], iters),
                 "torch_nchw": time_calls(graphed(base_nchw, x16_nchw)[0], iters),
                 "wino": time_calls(graphed(converted, x16)[0], iters)}
        layers = layer_rows(case.name, converted, arch, limits.l2_bytes)
        norms = norm_rows(case.name, converted)
    on_wino = [row for row in layers if "wino_us" in row]
    convs = [row for row in converted.wino_report if row.kind == "Conv2d"]
    share = sum(row["cudnn_us"] for row in on_wino) / (1e3 * eager["torch"])
    summary = {
        "record": "model", "model": case.name, "device": limits.name, "commit": commit_id(),
        "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
        "input": list(case.input_shape), "mode": policy.mode, "bound": policy.bound,
        "eager_ms": eager, "graph_ms": graph,
        # a call's peak above the memory before it; and what the converted layers keep
        "call_memory_mb": memory,
        "workspace_mb": sum(module.workspace_bytes for module in converted.modules()
                            if isinstance(module, wino_nn.Conv2d)) / 2**20,
        # against PyTorch in its faster memory format
        "speedup_eager": min(eager["torch"], eager["torch_nchw"]) / eager["wino"],
        "speedup_graph": min(graph["torch"], graph["torch_nchw"]) / graph["wino"],
        "conv_layers": len(convs),
        "converted": sum(row.converted for row in convs),
        "on_wino_kernels": len(on_wino),
        "norm_layers": len(norms),
        "norms_on_wino": sum(row["wino"] for row in norms),
        "wino_layer_time_share": share,
        "torch_fp16": accuracy(base_out.float(), ref, case.image),
        "wino_fp16": accuracy(conv_out.float(), ref, case.image),
    }
    log(f"{case.name}: eager {eager['torch']:.3f} -> {eager['wino']:.3f} ms "
        f"({summary['speedup_eager']:.2f}x), graph {graph['torch']:.3f} -> {graph['wino']:.3f} "
        f"ms ({summary['speedup_graph']:.2f}x, against PyTorch's faster format), "
        f"{len(on_wino)} convolutions and {summary['norms_on_wino']} GroupNorms on wino-tvm "
        f"kernels")
    return [summary, *layers, *norms]


def markdown(records: list[dict]) -> str:
    models = [r for r in records if r["record"] == "model"]
    lines = [f"# Model benchmark ({models[0]['device']}, commit {models[0]['commit']}, "
             f"torch {models[0]['torch']}, cuDNN {models[0]['cudnn']})", "",
             "fp16, random weights; torch in channels_last (CL) and contiguous (NCHW), the "
             "converted model in channels_last; speedup = the faster torch time / converted "
             "time, all in one process. Accuracy bound: "
             + (f"{models[0]['bound']:.1e} (explicit)" if models[0].get("bound")
                else "the fp16 accuracy bar (default)") + ".", "",
             "| model | eager ms torch CL / NCHW / wino | speedup | graph ms torch CL / NCHW / "
             "wino | speedup | MB an eager call takes torch CL / NCHW / wino (+ kept by its "
             "kernels) | conv layers on wino / eligible / all | their share of torch "
             "time | GroupNorms on wino / all | rel L2 vs fp32 torch / wino | PSNR dB torch / "
             "wino |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in models:
        psnr = (f"{m['torch_fp16']['psnr_db']:.1f} / {m['wino_fp16']['psnr_db']:.1f}"
                if "psnr_db" in m["wino_fp16"] else "-")
        eager, graph = m["eager_ms"], m["graph_ms"]
        memory = (f"{m['call_memory_mb']['torch']:.0f} / {m['call_memory_mb']['torch_nchw']:.0f}"
                  f" / {m['call_memory_mb']['wino']:.0f} (+ {m['workspace_mb']:.0f})")
        lines.append(
            f"| {m['model']} | {eager['torch']:.3f} / {eager['torch_nchw']:.3f} / "
            f"{eager['wino']:.3f} | {m['speedup_eager']:.2f}x | {graph['torch']:.3f} / "
            f"{graph['torch_nchw']:.3f} / {graph['wino']:.3f} | {m['speedup_graph']:.2f}x | "
            f"{memory} | {m['on_wino_kernels']} / {m['converted']} / {m['conv_layers']} | "
            f"{100 * m['wino_layer_time_share']:.0f}% | {m['norms_on_wino']} / "
            f"{m['norm_layers']} | {m['torch_fp16']['rel_l2_vs_fp32']:.1e} / "
            f"{m['wino_fp16']['rel_l2_vs_fp32']:.1e} | {psnr} |")
    lines += ["", "## Layers (each against cuDNN on the same inputs, this run)", "",
              "| model | layer | N,H,W,C,K | epilogue | kernel | wino us | cuDNN us | speedup |",
              "|---|---|---|---|---|---|---|---|"]
    for r in (r for r in records if r["record"] == "layer"):
        shape = ",".join(str(v) for v in r["workload"].values())
        wino = f"{r['wino_us']:.1f}" if "wino_us" in r else "-"
        speed = f"{r['speedup']:.2f}x" if "speedup" in r else "cuDNN"
        lines.append(f"| {r['model']} | {r['layer']} | {shape} | {r['epilogue'] or '-'} | "
                     f"{r['kernel']} | {wino} | {r['cudnn_us']:.1f} | {speed} |")
    norms = [r for r in records if r["record"] == "norm"]
    if norms:
        lines += ["", "## GroupNorms (each decision's times on the model's activations, "
                  "against PyTorch's channels_last GroupNorm and SiLU)", "",
                  "| model | layer | N,C,H,W | SiLU | runs on | wino us | torch us | speedup |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in norms:
            times = [f"{r[k]:.1f}" if r[k] else "-" for k in ("wino_us", "torch_us")]
            speed = f"{r['speedup']:.2f}x" if "speedup" in r else "-"
            lines.append(f"| {r['model']} | {r['layer']} | {','.join(map(str, r['shape']))} | "
                         f"{'yes' if r['silu'] else 'no'} | {'wino' if r['wino'] else 'torch'} "
                         f"| {times[0]} | {times[1]} | {speed} |")
    return "\n".join(lines) + "\n"


def plot(records: list[dict], path: Path) -> None:
    """Speedup per model (eager and graph), and each model's layers' speedups."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = [r for r in records if r["record"] == "model"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7))
    names = [m["model"] for m in models]
    xs = range(len(models))
    top.bar([x - 0.2 for x in xs], [m["speedup_eager"] for m in models], 0.4, label="eager")
    top.bar([x + 0.2 for x in xs], [m["speedup_graph"] for m in models], 0.4, label="CUDA graph")
    top.axhline(1.0, color="black", linewidth=0.8)
    top.set_xticks(list(xs), names, rotation=20, fontsize=8)
    top.set_ylabel("speedup over torch (faster format)")
    top.legend(fontsize=8)
    for x, m in zip(xs, models, strict=True):
        speeds = [r.get("speedup", 1.0) for r in records
                  if r["record"] == "layer" and r["model"] == m["model"]]
        bottom.scatter([x] * len(speeds), speeds, s=12)
    bottom.axhline(1.0, color="black", linewidth=0.8)
    bottom.set_xticks(list(xs), names, rotation=20, fontsize=8)
    bottom.set_ylabel("layer speedup (1 = on cuDNN)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.models", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--models", default=",".join(c.name for c in CASES))
    p.add_argument("--mode", default="verify", choices=("verify", "autotune"))
    p.add_argument("--record", type=Path, help="append the autotune's measurements here")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--bound", type=float, help="largest relative L2 error a layer's kernel may "
                   "have (default: the fp16 accuracy bar; 3e-3 admits F(4x4))")
    args = p.parse_args(argv)
    cases = {c.name: c for c in CASES}
    unknown = [m for m in args.models.split(",") if m not in cases]
    if unknown:
        print(f"error: unknown models {unknown}: choose from {', '.join(cases)}", file=sys.stderr)
        return 2
    policy = Policy(bound=args.bound, mode=args.mode, record_to=args.record)
    records = []
    args.out.mkdir(parents=True, exist_ok=True)
    failed = []
    for name in args.models.split(","):
        try:
            records += run_case(cases[name], policy, args.iters)
        except Exception:  # one model's failure is reported; the others still run
            log(f"{name} failed:\n{traceback.format_exc()}")
            failed.append(name)
            continue
        # after each model, so that a run cut short keeps what it measured
        (args.out / "models.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        (args.out / "models.md").write_text(markdown(records))
        plot(records, args.out / "models.png")
    log(f"wrote {args.out}/models.jsonl, models.md, models.png"
        + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
