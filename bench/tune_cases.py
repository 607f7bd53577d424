"""The benchmark cases with their logged configs, fastest first, for the tune folders' plans
(bench/results/h100/tune_*/plan.py): each picks its candidates from them."""

from collections.abc import Callable, Iterator

from wino_tvm.config import KNOWN_DEVICES, KernelConfig
from wino_tvm.suites import BENCH_WORKLOADS, FULL_EPILOGUES, TUNING_LOG
from wino_tvm.tune.best import latest, matching
from wino_tvm.tune.records import read_records
from wino_tvm.tune.space import Axes, Candidate, config_space
from wino_tvm.workload import Conv2dWorkload

H100 = KNOWN_DEVICES["h100"]
# The stacked lane configs of the space: wgmma, TMA, 4 tile groups.
STACKED_AXES = Axes(lane_wgmma=(True,), lane_tma=(True,), lane_stack=(True,))


def logged_cases(
    channels: int | None = None,
) -> Iterator[tuple[Conv2dWorkload, list[KernelConfig]]]:
    """Every fp16 m=2 benchmark case (both accumulators, plain and with the epilogue; C =
    channels only, if given) and its full-fusion configs in the tuning log, fastest first."""
    records = latest(read_records(TUNING_LOG))
    for shape in BENCH_WORKLOADS:
        if channels is not None and shape[3] != channels:
            continue
        for accum in ("fp16", "fp32"):
            for epilogue in FULL_EPILOGUES:
                wl = Conv2dWorkload(*shape, dtype="fp16", m=2, accum=accum, epilogue=epilogue)
                found = sorted(matching(records, wl, "h100", 2, "full"), key=lambda r: r.median_us)
                yield wl, [KernelConfig.parse(r.config)[1] for r in found]


def fitting(wl: Conv2dWorkload, configs: list[KernelConfig]) -> list[Candidate]:
    """configs for wl once each, in order, without those the H100 refuses."""
    return [Candidate(wl, c) for c in dict.fromkeys(configs) if not c.problems(wl, H100)]


def picks_beside(configs: list[KernelConfig],
                 where: Callable[[Conv2dWorkload], bool]) -> list[Candidate]:
    """Every logged case where(wl) holds: its logged pick, then those of configs the H100 takes
    for it (the same run's baseline beside the new configs)."""
    return [c for wl, logged in logged_cases() if where(wl)
            for c in fitting(wl, logged[:1] + configs)]


def stacked_space(wl: Conv2dWorkload) -> list[Candidate]:
    """Every stacked lane config of the space that the H100 takes for wl."""
    space, _ = config_space(wl, H100, STACKED_AXES)
    return [c for c in space if c.cfg.stack]
