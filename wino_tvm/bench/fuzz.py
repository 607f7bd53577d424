"""Shape fuzzing of the template families on the GPU: random valid workloads (odd and ragged
sizes, C != K, tiny and large), each family's default and a random config of its space, fresh
random inputs (unit scale, and scaled so that |y| reaches thousands), the output poisoned with
NaN before the run and compared with float64 (PyTorch; GPU side).

python -m wino_tvm.bench.fuzz --out DIR [--seed 0] [--count 200]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

from ..kernels import FAMILIES, FamilyConfig
from ..math.tolerance import rel_l2_tolerance
from ..runtime import cache
from ..runtime.dispatch import device_of
from ..workload import EPILOGUE_OPS, Conv2dWorkload

# (family, dtype, accumulator) the fuzz draws from: every precision the templates take.
PRECISIONS = (("lane", "fp16", "fp16"), ("lane", "fp16", "fp32"), ("f23", "fp16", "fp32"))
LARGE_OUTPUT = 4096.0  # |y|'s largest value in the scaled runs: well inside fp16's 65504


@dataclasses.dataclass(frozen=True)
class FuzzCase:
    wl: Conv2dWorkload
    cfg: FamilyConfig
    kind: str  # "default" or "random"
    scale: str  # "unit" or "large"
    seed: int


def _shape(rng: random.Random, family: str) -> tuple[int, int, int, int, int]:
    n = rng.choice((1, 1, 2, 3, 5))
    if family == "f23":  # one image row's patch in shared memory: W up to about 70
        h, w = rng.randint(1, 40), rng.randint(1, 70)
        c, k = 16 * rng.randint(1, 32), 64 * rng.randint(1, 4)
    else:
        h, w = rng.randint(1, 130), rng.randint(1, 130)
        c, k = 16 * rng.randint(1, 16), 16 * rng.randint(1, 16)
    return n, h, w, c, k


def cases(seed: int, count: int) -> list[FuzzCase]:
    """count cases drawn with seed: each a supported workload and a valid config."""
    rng = random.Random(seed)
    device, _ = device_of(0) if torch.cuda.is_available() else (None, None)
    from ..device import KNOWN_DEVICES

    device = device or KNOWN_DEVICES["h200"]
    out: list[FuzzCase] = []
    while len(out) < count:
        family, dtype, accum = rng.choice(PRECISIONS)
        epilogue = tuple(op for op in EPILOGUE_OPS if rng.random() < 0.4)
        wl = Conv2dWorkload(*_shape(rng, family), dtype=dtype, accum=accum, m=2,
                            epilogue=epilogue)
        fam = FAMILIES[family]
        if fam.supports(wl, device) is not None:
            continue
        if rng.random() < 0.5:
            cfg, kind = fam.default(wl, device), "default"
        else:
            valid = [c for c in fam.space(wl, {"wgmma": (False, True), "tma": (False, True),
                                               "stack": (False, True)} if family == "lane"
                                          else {}) if not c.problems(wl, device)]
            cfg, kind = rng.choice(valid), "random"
        out.append(FuzzCase(wl, cfg, kind, rng.choice(("unit", "large")), rng.randrange(2**31)))
    return out


def run(case: FuzzCase, arch: str) -> dict:
    """Build, run once into a NaN-poisoned output, compare with float64."""
    wl = case.wl
    library = cache.load(cache.build(wl, case.cfg, arch, quiet=True))
    gen = torch.Generator(device="cuda").manual_seed(case.seed)

    def rand(*size: int) -> torch.Tensor:
        return torch.rand(size, generator=gen, device="cuda", dtype=torch.float64) * 2 - 1

    x, w = rand(wl.n, wl.h, wl.w, wl.c), rand(3, 3, wl.c, wl.k)
    bias = rand(wl.k) if "bias" in wl.epilogue else None
    residual = rand(wl.n, wl.h, wl.w, wl.k) if "residual" in wl.epilogue else None
    if case.scale == "large":  # x scaled so that the convolution's largest |y| is LARGE_OUTPUT
        conv = F.conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1), padding=1)
        x = x * (LARGE_OUTPUT / float(conv.abs().max()))
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
    library.forward(x16.contiguous().data_ptr(), y.data_ptr(), workspace.data_ptr(), stream,
                    bias_ptr=None if b16 is None else b16.data_ptr(),
                    residual_ptr=None if r16 is None else r16.data_ptr())
    torch.cuda.synchronize()
    yd = y.double()
    nonfinite = int((~torch.isfinite(yd)).sum())
    rel = float((yd - ref).nan_to_num().norm() / ref.norm()) if ref.norm() > 0 else 0.0
    tolerance = rel_l2_tolerance(wl)
    return {"workload": wl.shape_dict(), "accum": wl.accum, "epilogue": list(wl.epilogue),
            "config": case.cfg.name(wl), "kind": case.kind, "scale": case.scale,
            "seed": case.seed, "rel_l2": rel, "nonfinite": nonfinite, "tolerance": tolerance,
            "correct": nonfinite == 0 and rel <= tolerance}


def run_all(todo: list[FuzzCase]) -> list[dict]:
    """Every case, its libraries built in parallel first."""
    _, arch = device_of(0)
    cache.build_all([(c.wl, c.cfg) for c in todo], arch)
    rows = []
    for case in todo:
        rows.append(run(case, arch))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.fuzz", description=__doc__)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=200)
    args = p.parse_args(argv)
    rows = run_all(cases(args.seed, args.count))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fuzz.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bad = [r for r in rows if not r["correct"]]
    print(f"fuzz: {len(rows) - len(bad)} of {len(rows)} correct (seed {args.seed})",
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
