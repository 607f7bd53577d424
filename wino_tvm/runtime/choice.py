"""Which kernel runs one convolution layer: a tuning record for this device, else the families'
no-tuning defaults; measured against cuDNN on first use unless the decision is already in the
user cache, with cuDNN the answer whenever nothing supported is faster (TVM-free, torch-free).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..device import DeviceLimits
from ..errors import WinoError
from ..kernels import FAMILIES, FamilyConfig, KernelFamily, parse_config
from ..math.tolerance import ACCURACY_BAR, SCHEMES, within_bar
from ..tune.best import latest, matching
from ..tune.records import Record, read_records
from ..workload import Conv2dWorkload, epilogue_text
from .cache import cache_root

TUNING_LOGS = Path(__file__).resolve().parents[2] / "tuning_logs"
CUDNN = "cudnn"
# How a choice is made: "trust" takes the record or default as it is; "verify" (the default)
# times it against cuDNN once per device and shape, and a family default next where a record
# lost; "autotune" times a few candidates too.
MODES = ("trust", "verify", "autotune")
# Candidates an autotune times beside cuDNN: the best logged ones and each family's default.
AUTOTUNE_LOGGED = 3
# The families take C in steps of one k16 MMA: a layer with other C (an RGB network's first
# layer, C = 3) runs padded with zero channels to the next step, the weight once and x on each
# call (ConvKernel), so that its time, which its decision measures, includes the padding.
CHANNEL_STEP = 16


def kernel_workload(base: Conv2dWorkload) -> Conv2dWorkload:
    """base as the kernels take it: C padded with zero channels to a multiple of CHANNEL_STEP."""
    return dataclasses.replace(base, c=-(-base.c // CHANNEL_STEP) * CHANNEL_STEP)


@dataclass(frozen=True)
class Choice:
    """A layer's kernel: `config` on `wl` (None: cuDNN; wl's C is kernel_workload's), and why."""

    wl: Conv2dWorkload
    config: FamilyConfig | None
    reason: str
    speedup: float | None = None  # over cuDNN where it was measured

    @property
    def name(self) -> str:
        return CUDNN if self.config is None else self.config.name(self.wl)


def buildable_families() -> list[KernelFamily]:
    """The families this machine can generate: templates always, TVM's only with TVM."""
    has_tvm = importlib.util.find_spec("tvm") is not None
    return [f for f in FAMILIES.values() if f.name != "pkf" or has_tvm]


def schemes(base: Conv2dWorkload, bound: float) -> list[Conv2dWorkload]:
    """base at every (accumulator, m) some family takes whose error is within bound."""
    out = []
    for dtype, accum, m in SCHEMES:
        if dtype != base.dtype:
            continue
        wl = dataclasses.replace(base, accum=accum, m=m)
        if within_bar(wl, bound) and any(m in f.tile_sizes(wl) for f in buildable_families()):
            out.append(wl)
    return out


def logged(base: Conv2dWorkload, device: DeviceLimits, bound: float,
           logs: Iterable[Path]) -> list[tuple[Conv2dWorkload, FamilyConfig, Record]]:
    """Correct records of base's shape, dtype and epilogue on this device within bound, of
    buildable families, fastest first; per scheme, records of the layer without its epilogue
    where none has it (the config applies with the epilogue too), so that a scheme logged only
    plain still competes with one logged with the epilogue."""
    records = latest([r for log in logs for r in read_records(log)])
    families = {f.name for f in buildable_families()}
    found = []
    for scheme in schemes(base, bound):
        for epilogue in dict.fromkeys((base.epilogue, ())):
            wl = dataclasses.replace(scheme, epilogue=epilogue)
            hits = [(scheme, r.kernel_config(), r)
                    for r in matching(records, wl, device.name, m=wl.m)]
            hits = [(w, cfg, r) for w, cfg, r in hits
                    if cfg.FAMILY in families and not cfg.problems(w, device)]
            if hits:
                found += hits
                break
    return sorted(found, key=lambda item: item[2].median_us)


# What a decision may time: the workload as a kernel takes it, its config, and why it is there.
Pick = tuple[Conv2dWorkload, FamilyConfig, str]


def defaults(base: Conv2dWorkload, device: DeviceLimits, bound: float) -> list[Pick]:
    """Each buildable family's no-tuning default, most promising first by the families' own
    rank (f44 under a bound that admits F(4x4)); within a family the cheapest accumulator
    within bound."""
    out = []
    for wl in schemes(base, bound):
        for fam in buildable_families():
            if fam.name != "pkf" and fam.supports(wl, device) is None:
                out.append((wl, fam.default(wl, device), fam.name))
    rank = {fam.name: fam.rank(base) for fam in buildable_families()}
    # fp16 accumulators first (the faster lane kernels) where the bound admits them, but not
    # at one 16-channel step (padded first layers): there the lane fp32 default was 1.06x-1.28x
    # faster at all six shapes timed (experiments: runtime_pad_c).
    fp16_first = base.c > CHANNEL_STEP
    return sorted(out, key=lambda item: (rank[item[2]], (item[0].accum == "fp16") != fp16_first))


@dataclass(frozen=True)
class Policy:
    """bound: the largest relative L2 error a kernel may have (default: the dtype's accuracy
    bar); mode: MODES; logs: the tuning logs to read; record_to: a tuning log the measurements
    are appended to."""

    bound: float | None = None
    mode: str = "verify"
    logs: tuple[Path, ...] = ()
    record_to: Path | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: choose one of {', '.join(MODES)}")

    def bound_for(self, wl: Conv2dWorkload) -> float:
        return ACCURACY_BAR[wl.dtype] if self.bound is None else self.bound

    def tuning_logs(self) -> list[Path]:
        return list(self.logs) or sorted(TUNING_LOGS.glob("*.jsonl"))


def candidates(base: Conv2dWorkload, device: DeviceLimits, policy: Policy) -> list[Pick]:
    """What may run base, best guess first: logged records, then the families' defaults (of
    base with C padded, kernel_workload)."""
    bound, padded = policy.bound_for(base), kernel_workload(base)
    found = [(wl, cfg, f"tuning record {r.median_us:.1f} us ({r.device})")
             for wl, cfg, r in logged(padded, device, bound, policy.tuning_logs())]
    found += [(wl, cfg, f"{family} default")
              for wl, cfg, family in defaults(padded, device, bound)]
    unique = {}
    for wl, cfg, why in found:
        unique.setdefault(cfg.name(wl), (wl, cfg, why))
    return list(unique.values())


def unsupported_reason(base: Conv2dWorkload, device: DeviceLimits, policy: Policy) -> str:
    """Why no family runs base (for the conversion report)."""
    bound = policy.bound_for(base)
    wls = schemes(kernel_workload(base), bound)
    if not wls:
        return f"no scheme within the accuracy bound {bound:.1e} for {base.dtype}"
    reasons = {f.name: f.supports(wl, device) for wl in wls for f in buildable_families()
               if f.supports(wl, device) is not None}
    return "; ".join(sorted(set(reasons.values()))) or "no family supports it"


def choice_key(base: Conv2dWorkload, policy: Policy) -> str:
    return " ".join([base.key, base.dtype, epilogue_text(base.epilogue) or "-", base.out,
                     f"bound={policy.bound_for(base):.2e}", policy.mode])


# The way decisions time cuDNN, in the decisions' file name: revision 2 times it at its fastest
# (a channels_last weight, cudnn.benchmark); decisions of an older revision are made again.
TIMING_REVISION = 2


class ChoiceCache:
    """Decisions per device, persisted in the user cache as JSON (one file per device and
    timing revision)."""

    def __init__(self, device: DeviceLimits, root: Path | None = None) -> None:
        safe = "".join(ch if ch.isalnum() else "_" for ch in device.name)
        self.path = (root or cache_root()) / "choices" / f"{safe}.r{TIMING_REVISION}.json"
        self.device = device

    def _read(self) -> dict:
        try:
            return json.loads(self.path.read_text())
        except (OSError, json.JSONDecodeError):
            return {}

    def get(self, key: str, base: Conv2dWorkload) -> Choice | None:
        entry = self._read().get(key)
        if entry is None:
            return None
        if entry["config"] == CUDNN:
            return Choice(base, None, entry["reason"], entry.get("speedup"))
        try:
            meta, cfg = parse_config(entry["config"])
        except WinoError:
            return None  # a name the code no longer parses: decide again
        wl = dataclasses.replace(kernel_workload(base), accum=meta["accum"], m=meta["m"])
        if cfg.problems(wl, self.device):
            return None  # the code no longer takes it: decide again
        return Choice(wl, cfg, entry["reason"], entry.get("speedup"))

    def put(self, key: str, choice: Choice) -> None:
        """Read-modify-write under a replace, so a concurrent writer loses at most its entry."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = self._read()
        data[key] = {"config": choice.name, "reason": choice.reason, "speedup": choice.speedup}
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, self.path)
