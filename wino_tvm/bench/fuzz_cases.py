"""The shape fuzz's cases, drawn without PyTorch: random valid workloads (odd and ragged sizes,
C != K, tiny and large) with each family's default or a random config of its space; f44's at
its F(4x4), checked against its own tolerance (math/tolerance.py). The pkf family generates
with TVM, so its cases are written out here as library sources on the CPU and run by
`python -m wino_tvm.bench.fuzz --sources DIR` on the GPU.

python -m wino_tvm.bench.fuzz_cases --family pkf --out DIR [--seed 0] [--count 12] [--arch sm_90]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from pathlib import Path

from ..device import KNOWN_DEVICES, DeviceLimits
from ..kernels import FAMILIES, FamilyConfig, parse_config
from ..workload import EPILOGUE_OPS, Conv2dWorkload

TEMPLATE_FAMILIES = ("lane", "f23", "f44")  # built on the GPU machine itself, no TVM
CASE_FILE = "case.json"
SOURCE_FILE = "library.cu"


@dataclasses.dataclass(frozen=True)
class FuzzCase:
    wl: Conv2dWorkload
    cfg: FamilyConfig
    kind: str  # "default" or "random"
    scale: str  # "unit" or "large"
    seed: int

    def to_json(self) -> dict:
        return {"workload": self.wl.shape_dict(), "config": self.cfg.name(self.wl),
                "epilogue": list(self.wl.epilogue), "kind": self.kind, "scale": self.scale,
                "seed": self.seed}

    @classmethod
    def from_json(cls, data: dict) -> FuzzCase:
        meta, cfg = parse_config(data["config"])
        shape = {k.lower(): v for k, v in data["workload"].items()}
        wl = Conv2dWorkload(**shape, **meta, epilogue=tuple(data["epilogue"]))
        return cls(wl, cfg, data["kind"], data["scale"], data["seed"])


def _shape(rng: random.Random, family: str) -> tuple[int, int, int, int, int]:
    n = rng.choice((1, 1, 2, 3, 5))
    if family == "f23":  # wide rows take strips
        h, w = rng.randint(1, 40), rng.randint(1, 200)
        c, k = 16 * rng.randint(1, 32), 64 * rng.randint(1, 4)
    elif family == "pkf":  # TVM generates each: smaller images keep the CPU side short
        h, w = rng.randint(1, 60), rng.randint(1, 60)
        c, k = 16 * rng.randint(1, 12), 16 * rng.randint(1, 12)
    elif family == "f44":  # C in chunks of 64, K in GEMM blocks of 128 or 256
        h, w = rng.randint(1, 130), rng.randint(1, 130)
        c, k = 64 * rng.randint(1, 8), 128 * rng.randint(1, 4)
    else:
        h, w = rng.randint(1, 130), rng.randint(1, 130)
        c, k = 16 * rng.randint(1, 16), 16 * rng.randint(1, 16)
    return n, h, w, c, k


def fuzz_precisions(family: str) -> tuple[tuple[str, str], ...]:
    """The (dtype, accumulator) pairs the fuzz draws for family: its fp16 ones (int8 needs
    quantised inputs and has its own tests)."""
    return tuple(p for p in FAMILIES[family].PRECISIONS if p[0] == "fp16")


def _random_axes(family: str) -> dict[str, tuple]:
    return ({"wgmma": (False, True), "tma": (False, True), "stack": (False, True)}
            if family == "lane" else {})


def cases(seed: int, count: int, families: tuple[str, ...] = TEMPLATE_FAMILIES,
          device: DeviceLimits | None = None) -> list[FuzzCase]:
    """count cases drawn with seed: each a supported workload and a valid config."""
    rng = random.Random(seed)
    device = device or KNOWN_DEVICES["h200"]
    choices = [(f, dtype, accum) for f in families for dtype, accum in fuzz_precisions(f)]
    out: list[FuzzCase] = []
    while len(out) < count:
        family, dtype, accum = rng.choice(choices)
        fam = FAMILIES[family]
        epilogue = tuple(op for op in EPILOGUE_OPS if rng.random() < 0.4)
        # each family's first tile size: F(2x2) or F(2, 3), f44's F(4x4)
        wl = Conv2dWorkload(*_shape(rng, family), dtype=dtype, accum=accum,
                            m=fam.TILE_SIZES[0], epilogue=epilogue)
        if fam.supports(wl, device) is not None:
            continue
        if rng.random() < 0.5:
            cfg, kind = fam.default(wl, device), "default"
        else:
            valid = [c for c in fam.space(wl, _random_axes(family))
                     if not c.problems(wl, device)]
            if not valid:
                continue
            cfg, kind = rng.choice(valid), "random"
        out.append(FuzzCase(wl, cfg, kind, rng.choice(("unit", "large")), rng.randrange(2**31)))
    return out


def write_sources(todo: list[FuzzCase], out: Path, arch: str) -> None:
    """Each case's library source and description in out/NNN/, with a progress line each."""
    from ..runtime.cache import library_source

    for i, case in enumerate(todo):
        folder = out / f"{i:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / SOURCE_FILE).write_text(library_source(case.wl, case.cfg, arch))
        (folder / CASE_FILE).write_text(json.dumps(case.to_json()) + "\n")
        print(f"[{i + 1}/{len(todo)}] {case.wl.key} {case.cfg.name(case.wl)}", file=sys.stderr,
              flush=True)


def read_sources(folder: Path) -> list[tuple[FuzzCase, Path]]:
    """The cases write_sources left in folder, each with its library source."""
    found = sorted(folder.glob(f"*/{CASE_FILE}"))
    return [(FuzzCase.from_json(json.loads(p.read_text())), p.parent / SOURCE_FILE)
            for p in found]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.fuzz_cases", description=__doc__)
    p.add_argument("--family", action="append", choices=sorted(FAMILIES), required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=12)
    p.add_argument("--arch", default="sm_90")
    args = p.parse_args(argv)
    write_sources(cases(args.seed, args.count, tuple(args.family)), args.out, args.arch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
