"""Named sets of (workload, config) artifacts for GPU evidence runs (TVM side).

python -m wino_tvm.suites prototype --out .gpu/prototype   # issue: Tensor Core prototype
python -m wino_tvm.suites pkf --out .gpu/pkf               # issue: the paper's PKF variants
python -m wino_tvm.suites full --out .gpu/full             # issue: --fusion full (+ epilogue)
python -m wino_tvm.suites bench --out .gpu/bench           # benchmark: + tuned best per workload
python -m wino_tvm.suites bench_full --out .gpu/bench_full # benchmark: tuned --fusion full
python -m wino_tvm.suites persist --out .gpu/persist       # A/B: persistent full kernels
python -m wino_tvm.suites groups --out .gpu/groups         # A/B: warp groups sharing U
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

from .config import KernelConfig, artifact_name
from .errors import WinoError
from .workload import OUTPUTS, Conv2dWorkload

PAPER_C64 = ((1, 224, 224, 64, 64), (1, 448, 448, 64, 64))
RESNET_N32 = ((32, 56, 56, 64, 64), (32, 28, 28, 128, 128), (32, 14, 14, 256, 256))


def prototype() -> Iterator[tuple[Conv2dWorkload, KernelConfig]]:
    """TVM prototype (fusion none): fp16 and int8, m = 2 and 4, paper 224^2 + ResNet at N=32."""
    for shape in (PAPER_C64[0], *RESNET_N32):
        for dtype in ("fp16", "int8"):
            for m in (2, 4):
                yield Conv2dWorkload(*shape, dtype=dtype, m=m), KernelConfig()


def pkf() -> Iterator[tuple[Conv2dWorkload, KernelConfig]]:
    """The paper's PKF-Shmem/LLC-16/32 plus none and syncfree, fp16 and int8, C=K=64 224^2/448^2."""
    for shape in PAPER_C64:
        for dtype in ("fp16", "int8"):
            wl = Conv2dWorkload(*shape, dtype=dtype, m=4)
            for fusion in ("none", "syncfree"):
                yield wl, KernelConfig(fusion=fusion)
            for fusion in ("shmem", "llc"):
                for tb_m in (16, 32):
                    yield wl, KernelConfig(tb_m=tb_m, fusion=fusion)


FULL_EPILOGUES = ((), ("bias", "residual", "relu"))
FULL_TILES = KernelConfig(tb_m=32, tb_n=32, tb_k=32, fusion="full")


def full() -> Iterator[tuple[Conv2dWorkload, KernelConfig]]:
    """--fusion full (32/32/32 tiles): fp16 and int8 (with each of its outputs), m = 2 and 4,
    without and with the whole epilogue, C=K=64 224^2."""
    for dtype in ("fp16", "int8"):
        for out in OUTPUTS[dtype]:
            for m in (2, 4):
                for epilogue in FULL_EPILOGUES:
                    yield Conv2dWorkload(*PAPER_C64[0], dtype=dtype, m=m, epilogue=epilogue,
                                         out=out), FULL_TILES


BENCH_WORKLOADS = (
    (1, 224, 224, 64, 64), (1, 448, 448, 64, 64), (1, 640, 640, 64, 64), (1, 960, 960, 64, 64),
    (8, 224, 224, 64, 64),
    *RESNET_N32, (32, 7, 7, 512, 512),
    (128, 56, 56, 64, 64), (128, 28, 28, 128, 128), (128, 14, 14, 256, 256),
    (128, 7, 7, 512, 512),
)
TUNING_LOG = Path(__file__).resolve().parents[1] / "tuning_logs" / "h100.jsonl"


def bench() -> Iterator[tuple[Conv2dWorkload, KernelConfig]]:
    """Per benchmark workload: the prototype and PKF-Shmem/LLC-16/32 for fp16 and int8, m = 2
    and 4, plus the tuned best of each dtype from the shipped H100 log."""
    from .tune.best import best_config

    for shape in BENCH_WORKLOADS:
        for dtype in ("fp16", "int8"):
            for m in (2, 4):
                wl = Conv2dWorkload(*shape, dtype=dtype, m=m)
                yield wl, KernelConfig(fusion="none")
                for fusion in ("shmem", "llc"):
                    for tb_m in (16, 32):
                        yield wl, KernelConfig(tb_m=tb_m, fusion=fusion)
            found = best_config(TUNING_LOG, Conv2dWorkload(*shape, dtype=dtype), "h100")
            if found is not None:
                cfg, record = found
                yield Conv2dWorkload(*shape, dtype=dtype, m=record["m"]), cfg


def bench_full() -> Iterator[tuple[Conv2dWorkload, KernelConfig]]:
    """Per benchmark workload and dtype: the tuned best --fusion full config from the shipped
    H100 log and 32/32/32 tiles at m = 2 and 4; for fp16 also the tuned best with fp16
    accumulators, and for both accumulators the best with the whole epilogue (tuned with it
    where the log has records of it, else the plain best); for int8 the tuned bests with int32
    accumulators, with fp16 ones (the lane kernel) and with fp32 ones (the F(2, 3) kernel),
    each also with an int8 output (as cuDNN's int8 implicit GEMM writes; tuned with it where
    the log has records of it)."""
    from .tune.best import best_config

    for shape in BENCH_WORKLOADS:
        seen = set()
        for dtype, accums in (("fp16", ("fp32", "fp16")), ("int8", ("int32", "fp16", "fp32"))):
            cases = [(Conv2dWorkload(*shape, dtype=dtype, m=m), FULL_TILES) for m in (2, 4)]
            for accum in accums:
                probe = Conv2dWorkload(*shape, dtype=dtype, accum=accum, m=2)  # m: the record's
                found = best_config(TUNING_LOG, probe, "h100", fusion="full")
                if found is None:
                    continue
                cfg, record = found
                best = dataclasses.replace(probe, m=record["m"])
                cases.insert(0, (best, cfg))
                # fp16 with the epilogue, int8 with an int8 y: tuned so where the log has records
                # of it, else the plain best
                other = (dataclasses.replace(probe, epilogue=FULL_EPILOGUES[1]) if dtype == "fp16"
                         else dataclasses.replace(probe, out="int8"))
                found = best_config(TUNING_LOG, other, "h100", fusion="full")
                cfg, record = found if found is not None else (cfg, record)
                cases.append((dataclasses.replace(other, m=record["m"]), cfg))
            for wl, cfg in cases:
                name = artifact_name(wl, cfg)
                if name not in seen:
                    seen.add(name)
                    yield wl, cfg


PERSIST_WORKLOADS = ((1, 224, 224, 64, 64), (1, 448, 448, 64, 64), (1, 960, 960, 64, 64),
                     (32, 56, 56, 64, 64), (128, 56, 56, 64, 64))
# (dtype, accum, tiles) with tb_k = C = 64, each built with and without persist.
PERSIST_TILES = (("fp16", "fp16", (32, 64)), ("fp16", "fp16", (16, 64)),
                 ("fp16", "fp16", (32, 32)), ("fp16", "fp32", (32, 32)),
                 ("fp16", "fp32", (16, 32)), ("int8", "int32", (16, 16)))


def persist() -> Iterator[tuple[Conv2dWorkload, KernelConfig]]:
    """Same-run A/B of persistent blocks (KernelConfig.persist) at m=2 on the C=K=64 benchmark
    workloads, fp16 (both accumulators) and int8, the fp16-accumulator 32/64 tiles also with
    the whole epilogue; at 224^2 also m=4."""
    for shape in PERSIST_WORKLOADS:
        cases = [(Conv2dWorkload(*shape, dtype=dtype, accum=accum, m=2), (tb_m, tb_n))
                 for dtype, accum, (tb_m, tb_n) in PERSIST_TILES]
        cases.append((dataclasses.replace(cases[0][0], epilogue=FULL_EPILOGUES[1]), (32, 64)))
        if shape == PERSIST_WORKLOADS[0]:
            cases += [(Conv2dWorkload(*shape, dtype=dtype, m=4), (16, 16))
                      for dtype in ("fp16", "int8")]
        for wl, (tb_m, tb_n) in cases:
            for on in (False, True):
                yield wl, KernelConfig(tb_m, tb_n, wl.c, fusion="full", persist=on)


GROUPS_WORKLOADS = ((1, 224, 224, 64, 64), (1, 960, 960, 64, 64), (32, 56, 56, 64, 64))
# (accum, tiles, groups): the persistent bests of the last tuning (fp16 32/64, fp32 16/32, one
# group) against tilings whose V slice is small enough for 2-4 groups next to U.
GROUPS_CASES = (("fp16", (32, 64), 1), ("fp16", (16, 64), 1), ("fp16", (16, 64), 2),
                ("fp16", (16, 32), 1), ("fp16", (16, 32), 2), ("fp16", (16, 32), 4),
                ("fp16", (32, 32), 1), ("fp16", (32, 32), 2),
                ("fp32", (16, 32), 1), ("fp32", (16, 32), 2), ("fp32", (16, 32), 3),
                ("fp32", (16, 32), 4), ("fp32", (32, 32), 1), ("fp32", (32, 32), 2))
GROUPS_EPILOGUE_CASES = (("fp16", (32, 64), 1), ("fp16", (16, 64), 2))


def groups() -> Iterator[tuple[Conv2dWorkload, KernelConfig]]:
    """Same-run A/B of warp groups sharing U in persistent blocks (KernelConfig.groups), fp16
    m=2 on three C=K=64 workloads; the fp16-accumulator 32/64 G1 and 16/64 G2 kernels also
    with the whole epilogue."""
    for shape in GROUPS_WORKLOADS:
        for accum, (tb_m, tb_n), count in GROUPS_CASES:
            wl = Conv2dWorkload(*shape, dtype="fp16", accum=accum, m=2)
            cfg = KernelConfig(tb_m, tb_n, wl.c, fusion="full", persist=True, groups=count)
            yield wl, cfg
            if (accum, (tb_m, tb_n), count) in GROUPS_EPILOGUE_CASES:
                yield dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1]), cfg


SUITES = {"prototype": prototype, "pkf": pkf, "full": full, "bench": bench,
          "bench_full": bench_full, "persist": persist, "groups": groups}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.suites", description=__doc__)
    p.add_argument("suite", choices=sorted(SUITES))
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--shard", default="1/1", help="K/N: build every N-th case from the K-th "
                                                  "(run N processes to use N cores)")
    args = p.parse_args(argv)
    try:
        k, n = (int(v) for v in args.shard.split("/"))
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        print(f"error: --shard {args.shard!r} must be K/N with 1 <= K <= N", file=sys.stderr)
        return 2
    from .artifact import build_artifact

    cases = list(SUITES[args.suite]())[k - 1 :: n]
    try:
        for i, (wl, cfg) in enumerate(cases, 1):
            name = artifact_name(wl, cfg)
            print(f"[{i}/{len(cases)}] {name}", flush=True)
            build_artifact(wl, cfg, args.out / name, args.arch, log=lambda _msg: None)
    except WinoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
