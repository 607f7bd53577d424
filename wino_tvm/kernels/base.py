"""The kernel-family contract: knobs declared once as data, the frozen config they make, and
the family protocol the registry holds (TVM-free).

A family's knob table gives, for every knob, its type and default, its domain, its token in the
config name, its help text and what it requires; the config name, its parser, `--set k=v`, the
tuner's axes and the domain checks are all derived from it (as CUTLASS derives its operation
names from its tile descriptions).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from ..device import DeviceLimits
from ..errors import WinoError
from ..harness import Kernels
from ..workload import Conv2dWorkload

# A requirement of a knob set off its default: (holds for this config, what it needs).
Requirement = tuple[Callable[[Any], bool], str]


@dataclass(frozen=True)
class Knob:
    """One schedule knob. `token` marks it in the config name: for a bool the word written when
    it is on, else a prefix before the value (`tbn32`, `g4`); `always` writes it at its default
    too. `axis` is what the tuner tries by default (None: the whole domain)."""

    name: str
    default: Any
    domain: tuple
    token: str
    help: str
    always: bool = False
    axis: tuple | None = None
    requires: tuple[Requirement, ...] = ()

    def format(self, value: Any) -> str:
        """The value as the CLI and the config name write it."""
        if isinstance(value, tuple):
            return "x".join(map(str, value))
        if isinstance(value, bool):
            return str(int(value))
        return str(value)

    def parse(self, text: str) -> Any:
        """The inverse of format() (bool also takes true/false), checked against the domain."""
        try:
            if isinstance(self.default, bool):
                value = {"1": True, "true": True, "0": False, "false": False}[text.lower()]
            elif isinstance(self.default, tuple):
                value = tuple(int(v) for v in text.split("x"))
            elif isinstance(self.default, int):
                value = int(text)
            else:
                value = text
        except (KeyError, ValueError):
            value = None
        if value not in self.domain:
            raise WinoError(f"{self.name}={text!r}: choose one of "
                            f"{', '.join(self.format(v) for v in self.domain)}")
        return value

    def token_of(self, value: Any) -> str | None:
        """This knob's name token for value (None: the name leaves it out)."""
        if isinstance(self.default, bool):
            return self.token if value else None
        if value == self.default and not self.always:
            return None
        return self.token + self.format(value)

    @property
    def axis_values(self) -> tuple:
        return self.domain if self.axis is None else self.axis


@dataclass(frozen=True)
class Fixed:
    """Name tokens a family always writes at this place (the knobs it does not have, spelled as
    the shared name grammar has them)."""

    tokens: tuple[str, ...]


def knob_fields(table: Iterable[Knob | Fixed]) -> Callable[[type], type]:
    """Class decorator: the table's knobs as the fields of a frozen dataclass, in table order."""
    knobs = tuple(k for k in table if isinstance(k, Knob))

    def make(cls: type) -> type:
        cls.__annotations__ = {k.name: type(k.default).__name__ for k in knobs}
        for k in knobs:
            setattr(cls, k.name, k.default)
        cls.NAME_LAYOUT = tuple(table)
        cls.KNOBS = {k.name: k for k in knobs}
        return dataclass(frozen=True)(cls)

    return make


class FamilyConfig:
    """What every family's config has: its name, parsing, knob access and domain checks. The
    fields come from the family's knob table (knob_fields)."""

    FAMILY: ClassVar[str]
    NAME_LAYOUT: ClassVar[tuple]
    KNOBS: ClassVar[dict[str, Knob]]
    fusion: ClassVar[str] = "full"  # the stage fusion (the TVM family has it as a knob)

    def name(self, wl: Conv2dWorkload) -> str:
        """Parseable name: the precision (dtype-accum-mM), then every token in layout order."""
        return "-".join([wl.dtype, wl.accum, f"m{wl.m}", *self.tokens()])

    def tokens(self) -> list[str]:
        out: list[str] = []
        for entry in self.NAME_LAYOUT:
            if isinstance(entry, Fixed):
                out += entry.tokens
            elif (token := entry.token_of(getattr(self, entry.name))) is not None:
                out.append(token)
        return out

    @classmethod
    def from_tokens(cls, tokens: list[str]) -> FamilyConfig | None:
        """The config whose tokens() are exactly these, or None."""
        values: dict[str, Any] = {}
        rest = list(tokens)
        for entry in cls.NAME_LAYOUT:
            if isinstance(entry, Fixed):
                if rest[:len(entry.tokens)] != list(entry.tokens):
                    return None
                del rest[:len(entry.tokens)]
                continue
            if not rest:
                continue
            head = rest[0]
            if isinstance(entry.default, bool):
                if head == entry.token:
                    values[entry.name] = True
                    rest.pop(0)
                continue
            if head.startswith(entry.token):
                try:
                    values[entry.name] = entry.parse(head[len(entry.token):])
                    rest.pop(0)
                except WinoError:
                    pass
        if rest:
            return None
        try:
            cfg = cls(**values)
        except TypeError:
            return None
        return cfg if cfg.tokens() == tokens and not cfg.knob_problems() else None

    def with_(self, **changes) -> FamilyConfig:
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.KNOBS}

    def changed(self) -> dict[str, Any]:
        """The knobs off their defaults."""
        return {name: value for name, value in self.as_dict().items()
                if value != self.KNOBS[name].default}

    @property
    def needs_sm90a(self) -> bool:
        """Uses sm_90a instructions (wgmma, TMA): compiled for WGMMA_ARCH, runs on sm_90."""
        return False

    def device_problems(self, wl: Conv2dWorkload, device: DeviceLimits | None) -> list[str]:
        """What device cannot give the config: sm_90a instructions, shared memory."""
        if device is None:
            return []
        if self.needs_sm90a and device.sm != 90:
            return [f"{self.FAMILY}: {self.name(wl)} uses wgmma or TMA, which need an sm_90 GPU "
                    f"(H100, H200), not {device.name} (sm_{device.sm})"]
        if self.smem_bytes(wl) > device.smem_per_block:
            return [f"{self.FAMILY}: shared memory {self.smem_bytes(wl)} B exceeds "
                    f"{device.name}'s {device.smem_per_block} B per block"]
        return []

    def knob_problems(self) -> list[str]:
        """Values outside a knob's domain, and knobs off their default whose requirement fails."""
        out = []
        for name, knob in self.KNOBS.items():
            value = getattr(self, name)
            if value not in knob.domain:
                out.append(f"{self.FAMILY}: {name}={knob.format(value)} is not one of "
                           f"{', '.join(knob.format(v) for v in knob.domain)}")
            elif value != knob.default:
                out += [f"{self.FAMILY}: {name}={knob.format(value)} {needs}"
                        for holds, needs in knob.requires if not holds(self)]
        return out

    def problems(self, wl: Conv2dWorkload, device: DeviceLimits | None = None) -> list[str]:
        """Every reason this config cannot run wl (empty when it can)."""
        raise NotImplementedError

    def validate(self, wl: Conv2dWorkload, device: DeviceLimits | None = None) -> None:
        problems = self.problems(wl, device)
        if problems:
            raise WinoError(f"config {self.name(wl)} is invalid: " + "; ".join(problems))

    @classmethod
    def from_settings(cls, settings: Iterable[str], base: FamilyConfig | None = None
                      ) -> FamilyConfig:
        """base (default: the knobs' defaults) with `key=value` settings applied (--set)."""
        changes = {}
        for item in settings:
            key, sep, text = item.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or key not in cls.KNOBS:
                from . import FAMILIES  # the registry imports this module

                owners = [f.name for f in FAMILIES.values() if key in f.Config.KNOBS]
                hint = f": {key} is a knob of --family {' / '.join(owners)}" if owners else ""
                raise WinoError(f"--set {item!r}: expected KNOB=VALUE with KNOB one of the "
                                f"{cls.FAMILY} family's {', '.join(cls.KNOBS)}{hint}")
            changes[key] = cls.KNOBS[key].parse(text.strip())
        return dataclasses.replace(base or cls(), **changes)


@dataclass(frozen=True)
class Generated:
    """A family's output for one (workload, config): the kernels for the harness, what
    config.json records of how they were made, and extra files for the artifact folder."""

    kernels: Kernels
    record: dict
    files: dict[str, str]

    @classmethod
    def of_template(cls, kernels: Kernels) -> Generated:
        """A filled template's output: no prototype, no barriers removed."""
        return cls(kernels, {
            "prototype_launches": [],
            "weight_launches": [dataclasses.asdict(x) for x in kernels.weight_launches],
            "forward_launches": [dataclasses.asdict(x) for x in kernels.forward_launches],
            "removed_barriers": [],
        }, {})


class KernelFamily(Protocol):
    """A kernel family: the dlight idea, a rule that says "mine" (None) or why not."""

    name: str
    Config: type[FamilyConfig]
    # How its kernels are made and why: a TVM prototype plus reconstructor passes, or a
    # template and the reason TVM cannot write it.
    source: str

    def tile_sizes(self, wl: Conv2dWorkload) -> tuple[int, ...]:
        """The Winograd m values it takes for wl's dtype and accumulator (empty: none)."""

    def supports(self, wl: Conv2dWorkload, device: DeviceLimits) -> str | None:
        """None when some config of the family runs wl on device, else why not."""

    def default(self, wl: Conv2dWorkload, device: DeviceLimits) -> FamilyConfig:
        """A good config with no tuning (supports() must be None)."""

    def rank(self, wl: Conv2dWorkload) -> int:
        """Where its default stands among the families' for wl when nothing is logged (lower:
        timed first), from where it won."""

    def space(self, wl: Conv2dWorkload, axes: dict[str, tuple]) -> Iterator[FamilyConfig]:
        """The tuner's candidates: the product of the knob axes (axes override defaults)."""

    def generate(self, wl: Conv2dWorkload, cfg: FamilyConfig, arch: str,
                 log: Callable[[str], None]) -> Generated:
        """The kernels of cfg for wl."""


class Family:
    """What the families share: the precisions and tile sizes they take, and the space as the
    product of the knob axes."""

    Config: type[FamilyConfig]
    PRECISIONS: tuple[tuple[str, str], ...]  # (dtype, accumulator) pairs
    TILE_SIZES: tuple[int, ...] = (2,)

    def tile_sizes(self, wl: Conv2dWorkload) -> tuple[int, ...]:
        return self.TILE_SIZES if (wl.dtype, wl.accum) in self.PRECISIONS else ()

    def space(self, wl: Conv2dWorkload, axes: dict[str, tuple]) -> Iterator[FamilyConfig]:
        yield from product(self.Config, axes)


def product(cls: type[FamilyConfig], axes: dict[str, tuple],
            fixed: dict[str, Any] | None = None) -> Iterator[FamilyConfig]:
    """Every config of the knobs' axes (overridden by `axes`, narrowed by `fixed`)."""
    names = list(cls.KNOBS)
    choices = []
    for name in names:
        if fixed and name in fixed:
            choices.append((fixed[name],))
        else:
            choices.append(tuple(axes.get(name, cls.KNOBS[name].axis_values)))
    for values in itertools.product(*choices):
        yield cls(**dict(zip(names, values, strict=True)))
