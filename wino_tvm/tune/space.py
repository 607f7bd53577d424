"""The config space of one workload on one device: every family's knob axes, pruned by the
paper's section 4.3 rules.

Each rule is a named function (wl, cfg, device) -> reason | None, so a test (and `tune space`)
can show what each one refuses. TVM-free.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..artifact import artifact_name
from ..device import MAX_THREAD_REGISTERS, DeviceLimits
from ..errors import WinoError
from ..kernels import FAMILIES, FamilyConfig, family, parse_config
from ..kernels.pkf.config import FRAGMENTS
from ..workload import BYTES, Conv2dWorkload, epilogue_text, parse_epilogue

# A thread has at most 255 registers; the A/B operand fragments, pointers and loop indices need
# about 60 of them, so accumulators beyond 192 (24 fp32 fragments) spill to local memory.
ACCUM_REGISTER_CAP = 192


@dataclass(frozen=True)
class Candidate:
    """One point of the space: the workload (with its tile size m) and the family config."""

    wl: Conv2dWorkload
    cfg: FamilyConfig

    @property
    def name(self) -> str:
        """Folder name: '<workload key>-<config name>[-<epilogue ops>]' (artifact_name)."""
        return artifact_name(self.wl, self.cfg)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What a record of it is found by (Record.key)."""
        return self.wl.key, self.cfg.name(self.wl), epilogue_text(self.wl.epilogue), self.wl.out

    @classmethod
    def from_config_name(cls, shape: dict[str, int], config: str, epilogue: str = "",
                         out: str = "") -> Candidate:
        """Inverse of (wl.shape_dict(), cfg.name(wl), epilogue_text(wl.epilogue), wl.out): the
        config name carries dtype, accum, m; out "" is the dtype's default y."""
        meta, cfg = parse_config(config)
        dims = {k.lower(): v for k, v in shape.items()}
        wl = Conv2dWorkload(**dims, dtype=meta["dtype"], m=meta["m"], accum=meta["accum"],
                            epilogue=parse_epilogue(epilogue), out=out)
        return cls(wl, cfg)


@dataclass(frozen=True)
class Axes:
    """What the space spans: the families, the Winograd m values, and per family the knob
    values that override its knob table's default axes."""

    families: tuple[str, ...] = tuple(FAMILIES)
    m: tuple[int, ...] = (2, 4)
    knobs: dict[str, dict[str, tuple]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.families:
            family(name)
        for name, knobs in self.knobs.items():
            config = family(name).Config
            for knob in knobs:
                if knob not in config.KNOBS:
                    raise WinoError(f"--axis {name}.{knob}: the {name} family has no knob "
                                    f"{knob!r}; its knobs: {', '.join(config.KNOBS)}")

    @classmethod
    def parse(cls, families: str, m: tuple[int, ...], settings: Iterable[str]) -> Axes:
        """--family a,b and --axis [FAMILY.]KNOB=V1,V2 (a knob without a family: every family
        of the list that has it, each value checked against each one's domain). A mistake is
        a WinoError of one line that names the --axis item."""
        names = tuple(dict.fromkeys(families.split(","))) if families else tuple(FAMILIES)
        unknown = [name for name in names if name not in FAMILIES]
        if unknown:
            raise WinoError(f"--family {families}: unknown kernel family {unknown[0]!r}: choose "
                            f"from {', '.join(FAMILIES)}")
        knobs: dict[str, dict[str, tuple]] = {}
        for item in settings:
            key, sep, values = item.partition("=")
            fam, dot, knob = key.strip().rpartition(".")
            knob = knob.replace("-", "_")
            if not sep or not knob or not values.strip():
                raise WinoError(f"--axis {item!r}: expected [FAMILY.]KNOB=V1,V2, e.g. "
                                "lane.wgmma=0,1")
            if dot:
                if fam not in FAMILIES:
                    raise WinoError(f"--axis {item!r}: unknown kernel family {fam!r}: choose "
                                    f"one of {', '.join(FAMILIES)}")
                if fam not in names:
                    raise WinoError(f"--axis {item!r}: the {fam} family is not in --family "
                                    f"{','.join(names)}")
                targets = [fam]
            else:
                targets = [n for n in names if knob in family(n).Config.KNOBS]
                if not targets:
                    raise WinoError(f"--axis {item!r}: no family of {', '.join(names)} has a "
                                    f"knob {knob!r}")
            for name in targets:
                spec = family(name).Config.KNOBS.get(knob)
                if spec is None:
                    raise WinoError(f"--axis {item!r}: the {name} family has no knob {knob!r}; "
                                    f"its knobs: {', '.join(family(name).Config.KNOBS)}")
                try:
                    parsed = tuple(dict.fromkeys(spec.parse(v.strip())
                                                 for v in values.split(",")))
                except WinoError as exc:
                    raise WinoError(f"--axis {item!r}: the {name} family's {exc}") from None
                knobs.setdefault(name, {})[knob] = parsed
        return cls(names, m, knobs)


DEFAULT_AXES = Axes()
Rule = Callable[[Conv2dWorkload, FamilyConfig, DeviceLimits], str | None]


def legality(wl: Conv2dWorkload, cfg: FamilyConfig, device: DeviceLimits) -> str | None:
    """The family's own checks: knob domains and requirements, divisibility, shapes; and
    sm_90a instructions (wgmma, TMA: every f23 config) only for an sm_90 device, now that the
    families that use them are in the default space. (Shared memory is the next rule's.)"""
    problems = cfg.problems(wl)
    if not problems and cfg.needs_sm90a and device.sm != 90:
        problems = cfg.device_problems(wl, device)  # the sm_90a problem comes first
    return "; ".join(problems) if problems else None


def shared_memory(wl: Conv2dWorkload, cfg: FamilyConfig, device: DeviceLimits) -> str | None:
    """The block's shared memory must fit the opt-in shared memory per block (and so must any
    other kernel's of the family: pkf's separate OTrans)."""
    smem = cfg.smem_bytes(wl)
    if smem > device.smem_per_block:
        return f"shared memory {smem} B > {device.smem_per_block} B per block"
    return "; ".join(cfg.device_problems(wl, device)) or None


def l2_residency(wl: Conv2dWorkload, cfg: FamilyConfig, device: DeviceLimits) -> str | None:
    """llc only: the V slices of the resident blocks, Ve*alpha^2*TB_M*TB_K*min(N_TB, N_SM),
    must stay in L2 until the BGEMM reads them back."""
    if cfg.fusion != "llc":
        return None
    resident = min(cfg.blocks(wl), device.sms)
    need = BYTES[wl.dtype] * wl.alpha**2 * cfg.tb_m * cfg.tb_k * resident
    if need > device.l2_bytes:
        return f"llc working set {need} B > L2 {device.l2_bytes} B"
    return None


def max_blocks(wl: Conv2dWorkload) -> int:
    """The most thread blocks any WMMA-legal tiling gives (one fragment per block)."""
    return max(
        (wl.ntiles_padded(fm) // fm * (wl.k // fn) for fm, fn, _ in FRAGMENTS if wl.k % fn == 0),
        default=0,
    )


def sm_fill(wl: Conv2dWorkload, cfg: FamilyConfig, device: DeviceLimits) -> str | None:
    """N_TB >= N_SM, so that no SM idles; a workload too small for that with any tiling needs
    only as many blocks as its finest tiling gives (else its space would be empty). The f23
    and f44 families have one tiling, so nothing finer to prefer (f23's 108 blocks at N=32
    14^2 were its fastest against cuDNN); more blocks through f23's C split are a tuned knob."""
    if cfg.FAMILY in ("f23", "f44"):
        return None
    need = min(device.sms, max_blocks(wl))
    if cfg.blocks(wl) < need:
        return f"{cfg.blocks(wl)} thread blocks < {need} (SMs: {device.sms})"
    return None


def accumulator_registers(
    wl: Conv2dWorkload, cfg: FamilyConfig, device: DeviceLimits
) -> str | None:
    """The TVM family's warp keeps alpha*(tb_m/frag_m)*(tb_n/frag_n) accumulator fragments live
    (all alpha_h rows of its tap column); their registers must stay under ACCUM_REGISTER_CAP,
    less what a block of more than 256 threads (warp groups) takes from each thread's 255."""
    if cfg.FAMILY != "pkf":
        return None
    frags = cfg.accumulator_fragments(wl)
    regs = cfg.accumulator_registers(wl)
    cap = ACCUM_REGISTER_CAP - (MAX_THREAD_REGISTERS - cfg.thread_registers(wl))
    if regs > cap:
        return f"{frags} accumulator fragments = {regs} registers > {cap}"
    return None


# Order matters only for which reason a config is counted under (the first that refuses it);
# legality comes first because the other rules assume a legal config.
RULES: tuple[Rule, ...] = (legality, shared_memory, l2_residency, sm_fill, accumulator_registers)


def refusal(wl: Conv2dWorkload, cfg: FamilyConfig, device: DeviceLimits) -> tuple[str, str] | None:
    """(rule name, reason) of the first rule that refuses cfg, or None when it is in the space."""
    for rule in RULES:
        reason = rule(wl, cfg, device)
        if reason is not None:
            return rule.__name__, reason
    return None


def tile_sizes(wl: Conv2dWorkload, axes: Axes) -> tuple[int, ...]:
    """The axes' m values that some family of the axes takes for wl's dtype and accumulator."""
    taken = {m for name in axes.families for m in family(name).tile_sizes(wl)}
    return tuple(m for m in axes.m if m in taken)


def config_space(
    wl: Conv2dWorkload, device: DeviceLimits, axes: Axes = DEFAULT_AXES
) -> tuple[list[Candidate], Counter[str]]:
    """Every candidate of wl's shape, dtype and accumulator (m from axes) the rules keep, and how
    many each rule refused."""
    kept: list[Candidate] = []
    refused: Counter[str] = Counter()
    for name in axes.families:
        fam = family(name)
        for m in (m for m in axes.m if m in fam.tile_sizes(wl)):
            wl_m = dataclasses.replace(wl, m=m)
            for cfg in fam.space(wl_m, axes.knobs.get(name, {})):
                verdict = refusal(wl_m, cfg, device)
                if verdict is None:
                    kept.append(Candidate(wl_m, cfg))
                else:
                    refused[verdict[0]] += 1
    return kept, refused
