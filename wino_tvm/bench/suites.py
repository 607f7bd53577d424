"""Named sets of (workload, config) artifacts for GPU evidence runs (the pkf family's need TVM):

python -m wino_tvm.bench.suites SUITE --out .gpu/SUITE [--shard K/N]

prototype (TVM's prototypes), pkf (the paper's PKF variants), full (full fusion with the
epilogue), bench (the first benchmark), bench_full (the full-fusion benchmark: the tuned picks),
persist and groups (A/Bs of persistent blocks and warp groups), sanitize (one small variant of
every family and feature, for racecheck and synccheck).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

from ..artifact import artifact_name
from ..errors import WinoError
from ..kernels import FamilyConfig
from ..kernels.f23.config import F23Config
from ..kernels.lane.config import LaneConfig
from ..kernels.pkf.config import PkfConfig
from ..workload import OUTPUTS, Conv2dWorkload

PAPER_C64 = ((1, 224, 224, 64, 64), (1, 448, 448, 64, 64))
RESNET_N32 = ((32, 56, 56, 64, 64), (32, 28, 28, 128, 128), (32, 14, 14, 256, 256))


def prototype() -> Iterator[tuple[Conv2dWorkload, FamilyConfig]]:
    """TVM prototype (fusion none): fp16 and int8, m = 2 and 4, paper 224^2 + ResNet at N=32."""
    for shape in (PAPER_C64[0], *RESNET_N32):
        for dtype in ("fp16", "int8"):
            for m in (2, 4):
                yield Conv2dWorkload(*shape, dtype=dtype, m=m), PkfConfig()


def pkf() -> Iterator[tuple[Conv2dWorkload, FamilyConfig]]:
    """The paper's PKF-Shmem/LLC-16/32 plus none and syncfree, fp16 and int8, C=K=64 224^2/448^2."""
    for shape in PAPER_C64:
        for dtype in ("fp16", "int8"):
            wl = Conv2dWorkload(*shape, dtype=dtype, m=4)
            for fusion in ("none", "syncfree"):
                yield wl, PkfConfig(fusion=fusion)
            for fusion in ("shmem", "llc"):
                for tb_m in (16, 32):
                    yield wl, PkfConfig(tb_m=tb_m, fusion=fusion)


FULL_EPILOGUES = ((), ("bias", "residual", "relu"))
FULL_TILES = PkfConfig(tb_m=32, tb_n=32, tb_k=32, fusion="full")


def full() -> Iterator[tuple[Conv2dWorkload, FamilyConfig]]:
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
TUNING_LOG = Path(__file__).resolve().parents[2] / "tuning_logs" / "h100.jsonl"


def bench() -> Iterator[tuple[Conv2dWorkload, FamilyConfig]]:
    """Per benchmark workload: the prototype and PKF-Shmem/LLC-16/32 for fp16 and int8, m = 2
    and 4, plus the tuned best of each dtype from the shipped H100 log."""
    from ..tune.best import best_config

    for shape in BENCH_WORKLOADS:
        for dtype in ("fp16", "int8"):
            for m in (2, 4):
                wl = Conv2dWorkload(*shape, dtype=dtype, m=m)
                yield wl, PkfConfig(fusion="none")
                for fusion in ("shmem", "llc"):
                    for tb_m in (16, 32):
                        yield wl, PkfConfig(tb_m=tb_m, fusion=fusion)
            found = best_config(TUNING_LOG, Conv2dWorkload(*shape, dtype=dtype), "h100")
            if found is not None:
                cfg, record = found
                yield Conv2dWorkload(*shape, dtype=dtype, m=record["m"]), cfg


def bench_full() -> Iterator[tuple[Conv2dWorkload, FamilyConfig]]:
    """Per benchmark workload and dtype: the tuned best --fusion full config from the shipped
    H100 log and 32/32/32 tiles at m = 2 and 4; for fp16 also the tuned best with fp16
    accumulators, and for both accumulators the best with the whole epilogue (tuned with it
    where the log has records of it, else the plain best); for int8 the tuned bests with int32
    accumulators, with fp16 ones (the lane kernel) and with fp32 ones (the F(2, 3) kernel),
    each also with an int8 output (as cuDNN's int8 implicit GEMM writes; tuned with it where
    the log has records of it)."""
    from ..tune.best import best_config

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


def persist() -> Iterator[tuple[Conv2dWorkload, FamilyConfig]]:
    """Same-run A/B of persistent blocks (PkfConfig.persist) at m=2 on the C=K=64 benchmark
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
                yield wl, PkfConfig(tb_m, tb_n, wl.c, fusion="full", persist=on)


GROUPS_WORKLOADS = ((1, 224, 224, 64, 64), (1, 960, 960, 64, 64), (32, 56, 56, 64, 64))
# (accum, tiles, groups): the persistent bests of the last tuning (fp16 32/64, fp32 16/32, one
# group) against tilings whose V slice is small enough for 2-4 groups next to U.
GROUPS_CASES = (("fp16", (32, 64), 1), ("fp16", (16, 64), 1), ("fp16", (16, 64), 2),
                ("fp16", (16, 32), 1), ("fp16", (16, 32), 2), ("fp16", (16, 32), 4),
                ("fp16", (32, 32), 1), ("fp16", (32, 32), 2),
                ("fp32", (16, 32), 1), ("fp32", (16, 32), 2), ("fp32", (16, 32), 3),
                ("fp32", (16, 32), 4), ("fp32", (32, 32), 1), ("fp32", (32, 32), 2))
GROUPS_EPILOGUE_CASES = (("fp16", (32, 64), 1), ("fp16", (16, 64), 2))


def groups() -> Iterator[tuple[Conv2dWorkload, FamilyConfig]]:
    """Same-run A/B of warp groups sharing U in persistent blocks (PkfConfig.groups), fp16
    m=2 on three C=K=64 workloads; the fp16-accumulator 32/64 G1 and 16/64 G2 kernels also
    with the whole epilogue."""
    for shape in GROUPS_WORKLOADS:
        for accum, (tb_m, tb_n), count in GROUPS_CASES:
            wl = Conv2dWorkload(*shape, dtype="fp16", accum=accum, m=2)
            cfg = PkfConfig(tb_m, tb_n, wl.c, fusion="full", persist=True, groups=count)
            yield wl, cfg
            if (accum, (tb_m, tb_n), count) in GROUPS_EPILOGUE_CASES:
                yield dataclasses.replace(wl, epilogue=FULL_EPILOGUES[1]), cfg


def sanitize() -> Iterator[tuple[Conv2dWorkload, FamilyConfig]]:
    """One small variant of every family and feature, for compute-sanitizer's racecheck and
    synccheck (wino_tvm.bench.sanitize): the pkf fusions, persistent blocks, warp groups, the
    channel split and U from L2; the lane kernel's mma.sync, tap split, wgmma, TMA, stack and
    own exchange; the f23 kernel plain, persistent, stream-K, C split, with the producer
    warpgroup (also on strips of 7 over compact rows in pairs, a default) and int8."""
    small, one_chunk = (1, 16, 20, 64, 64), (2, 12, 20, 64, 64)
    for fusion in ("syncfree", "shmem", "llc", "full"):
        yield Conv2dWorkload(*small, m=2), PkfConfig(fusion=fusion)
    yield Conv2dWorkload(*small, m=4), PkfConfig(32, 32, 32, fusion="full")
    wl = Conv2dWorkload(*one_chunk, m=2, accum="fp16")
    yield wl, PkfConfig(32, 32, 64, fusion="full", persist=True)
    yield wl, PkfConfig(16, 32, 64, fusion="full", persist=True, groups=2)
    yield wl, PkfConfig(16, 16, 64, fusion="full", persist=True, k_split=2)
    yield Conv2dWorkload(*small, dtype="int8", m=2), PkfConfig(16, 64, 64, fusion="full",
                                                              u_l2=True)
    lane = Conv2dWorkload(*small, accum="fp16")
    yield lane, LaneConfig(tb_n=32, tb_k=32, groups=2, k_split=2)
    yield lane, LaneConfig(tb_n=64, tb_k=32, groups=2, tap_split=2, stages=3)
    yield lane, LaneConfig(tb_n=32, tb_k=64, groups=4, wgmma=True)
    yield Conv2dWorkload(*small), LaneConfig(tb_n=32, tb_k=64, groups=4, wgmma=True, tma=True,
                                             tap_split=2, exchange_own=True)
    yield lane, LaneConfig(tb_n=32, tb_k=64, groups=4, wgmma=True, tma=True, stack=True,
                           k_split=2)
    yield Conv2dWorkload(*small, dtype="int8", accum="fp16", out="int8"), LaneConfig(
        tb_n=64, tb_k=64, groups=4, wgmma=True, tma=True, stack=True, tap_split=2)
    f23 = Conv2dWorkload(2, 9, 14, 128, 64)
    yield f23, F23Config()
    yield f23, F23Config(persist=True, stages=4, row_pairs=True)
    yield f23, F23Config(persist=True, stream_k=True, compact_rows=True)
    yield f23, F23Config(c_split=2, stages=4)
    yield f23, F23Config(producer=True)
    yield f23, F23Config(persist=True, row_pairs=True, x_chunks=2, producer=True)
    yield Conv2dWorkload(2, 10, 30, 128, 64), F23Config(persist=True, compact_rows=True,
                                                        row_pairs=True, strip=7, x_chunks=2,
                                                        producer=True)
    yield Conv2dWorkload(2, 9, 14, 128, 64, dtype="int8", accum="fp32", out="int8"), F23Config(
        persist=True)


SUITES = {"prototype": prototype, "pkf": pkf, "full": full, "bench": bench,
          "bench_full": bench_full, "persist": persist, "groups": groups, "sanitize": sanitize}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m wino_tvm.bench.suites", description=__doc__)
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
    from ..artifact import build_artifact

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
