"""Shape fuzzing on the GPU: the cases of wino_tvm.bench.fuzz_cases, fresh random inputs (unit
scale, and scaled so that |y| reaches thousands), the output poisoned with NaN before the run
and compared with float64 (PyTorch; GPU side). The template families build here; the pkf
family's cases come as sources generated on the CPU (--sources).

python -m wino_tvm.bench.fuzz --out DIR [--seed 0] [--count 200] [--family f44 ...]
    [--sources DIR ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch
import torch.nn.functional as F

from ..library import WinoLibrary, compile_library_source
from ..math.tolerance import rel_l2_tolerance
from ..runtime import cache, ops
from ..runtime.dispatch import device_of
from .fuzz_cases import TEMPLATE_FAMILIES, FuzzCase, cases, read_sources

LARGE_OUTPUT = 4096.0  # |y|'s largest value in the scaled runs by default (fp16: 65504)


def run(case: FuzzCase, library: WinoLibrary, large: float = LARGE_OUTPUT) -> dict:
    """Run once into a NaN-poisoned output, compare with float64."""
    wl = case.wl
    gen = torch.Generator(device="cuda").manual_seed(case.seed)

    def rand(*size: int) -> torch.Tensor:
        return torch.rand(size, generator=gen, device="cuda", dtype=torch.float64) * 2 - 1

    x, w = rand(wl.n, wl.h, wl.w, wl.c), rand(3, 3, wl.c, wl.k)
    bias = rand(wl.k) if "bias" in wl.epilogue else None
    residual = rand(wl.n, wl.h, wl.w, wl.k) if "residual" in wl.epilogue else None
    if case.scale == "large":  # x scaled so that the convolution's largest |y| is `large`
        conv = F.conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1), padding=1)
        x = x * (large / float(conv.abs().max()))
    x16, w16 = x.half(), w.half()
    b16 = None if bias is None else bias.half()
    r16 = None if residual is None else residual.half()
    ref = F.conv2d(x16.double().permute(0, 3, 1, 2), w16.double().permute(3, 2, 0, 1),
                   padding=1).permute(0, 2, 3, 1)
    ref = ref + (b16.double() if b16 is not None else 0) + (r16.double() if r16 is not None
                                                             else 0)
    ref = ref.relu() if "relu" in wl.epilogue else ref
    workspace = torch.empty(library.workspace_bytes(), dtype=torch.uint8, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    library.weight_transform(w16.contiguous().data_ptr(), workspace.data_ptr(), stream)
    y = torch.full((wl.n, wl.h, wl.w, wl.k), float("nan"), dtype=torch.float16, device="cuda")
    ops.forward(library, x16.contiguous(), y, workspace, stream,
                ops.scratch_for(library, "cuda"), b16, r16)
    torch.cuda.synchronize()
    yd = y.double()
    nonfinite = int((~torch.isfinite(yd)).sum())
    rel = float((yd - ref).nan_to_num().norm() / ref.norm()) if ref.norm() > 0 else 0.0
    tolerance = rel_l2_tolerance(wl)
    return {"workload": wl.shape_dict(), "accum": wl.accum, "epilogue": list(wl.epilogue),
            "config": case.cfg.name(wl), "kind": case.kind, "scale": case.scale,
            "seed": case.seed, "rel_l2": rel, "nonfinite": nonfinite, "tolerance": tolerance,
            "correct": nonfinite == 0 and rel <= tolerance}


def run_all(todo: list[FuzzCase], large: float = LARGE_OUTPUT) -> list[dict]:
    """Every case, its libraries built in parallel first (the template families)."""
    _, arch = device_of(0)
    built = cache.build_all([(c.wl, c.cfg) for c in todo], arch)
    for result in built:
        if isinstance(result, Exception):
            raise result
    return run_each([(c, cache.load(path)) for c, path in zip(todo, built, strict=True)], large)


def run_sources(folder: Path, large: float = LARGE_OUTPUT) -> list[dict]:
    """The cases fuzz_cases wrote to folder, compiled here from their sources."""
    _, arch = device_of(0)
    found = read_sources(folder)

    def build(source: Path) -> WinoLibrary:
        return WinoLibrary(compile_library_source(source, arch, source.with_suffix(".so")))

    with ThreadPoolExecutor() as pool:
        libraries = list(pool.map(build, [source for _, source in found]))
    return run_each([(case, lib) for (case, _), lib in zip(found, libraries, strict=True)],
                    large)


def run_each(todo: list[tuple[FuzzCase, WinoLibrary]], large: float) -> list[dict]:
    rows = []
    for case, library in todo:
        row = run(case, library, large)
        rows.append({"family": case.cfg.FAMILY, "large_output": large, **row})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.fuzz", description=__doc__)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=200, help="template-family cases drawn here")
    p.add_argument("--family", action="append", choices=TEMPLATE_FAMILIES,
                   help="draw only this template family's cases (repeatable; default: all)")
    p.add_argument("--large-output", type=float, default=LARGE_OUTPUT,
                   help="largest |y| of the scaled cases (fp16 holds 65504)")
    p.add_argument("--sources", type=Path, action="append", default=[],
                   help="a folder of python -m wino_tvm.bench.fuzz_cases (repeatable)")
    args = p.parse_args(argv)
    families = tuple(args.family or TEMPLATE_FAMILIES)
    rows = run_all(cases(args.seed, args.count, families), args.large_output) if args.count else []
    for folder in args.sources:
        rows += run_sources(folder, args.large_output)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fuzz.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bad = [r for r in rows if not r["correct"]]
    print(f"fuzz: {len(rows) - len(bad)} of {len(rows)} correct", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
