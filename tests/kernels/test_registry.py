"""The kernel families behind one registry (wino_tvm.kernels) and the knob tables their configs
are made of (wino_tvm.kernels.base): config names (every name the shipped tuning log holds parses
and round-trips; no other spelling of a config does), `--set` values, knob requirements, each
family's no-tuning default and its supports() verdict. TVM-free."""

from __future__ import annotations

import dataclasses
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.errors import WinoError
from wino_tvm.kernels import FAMILIES, FamilyConfig, family, family_of, parse_config
from wino_tvm.kernels.base import Fixed, Knob
from wino_tvm.kernels.f23.config import F23Config
from wino_tvm.kernels.f44.config import F44Config
from wino_tvm.kernels.lane.config import LaneConfig
from wino_tvm.kernels.pkf.config import PkfConfig
from wino_tvm.workload import Conv2dWorkload

ROOT = Path(__file__).resolve().parents[2]
TUNING_LOG = ROOT / "tuning_logs" / "h100.jsonl"
H200 = KNOWN_DEVICES["h200"]
CONFIGS = {"pkf": PkfConfig, "lane": LaneConfig, "f23": F23Config, "f44": F44Config}


def _log_records() -> list[dict]:
    return [json.loads(line) for line in TUNING_LOG.read_text().splitlines() if line.strip()]


def _family_of_name(name: str) -> str:
    tokens = name.split("-")
    return next((name for name in ("lane", "f23", "f44") if name in tokens), "pkf")


# --- the registry -------------------------------------------------------------------------


def test_registry_holds_the_four_families() -> None:
    assert list(FAMILIES) == ["pkf", "lane", "f23", "f44"]
    for name, fam in FAMILIES.items():
        assert fam.name == name and family(name) is fam
        assert fam.Config is CONFIGS[name] and fam.Config.FAMILY == name
        assert family_of(fam.Config()) is fam
        assert isinstance(fam.source, str) and fam.source
    assert "TVM" in family("pkf").source
    assert "templates/lane_layout.cu" in family("lane").source
    assert "templates/f23_wgmma.cu" in family("f23").source
    with pytest.raises(WinoError, match="unknown kernel family 'wmma': choose one of pkf, lane, "
                                        "f23"):
        family("wmma")


def test_each_family_ranks_its_default_where_it_won() -> None:
    """f44 first at C = K = 512 (down to one block of 64 tiles), last elsewhere; f23 first
    from C = 128; the lane kernels first below it; pkf after both templates."""
    def order(*shape: int) -> list[str]:
        wl = Conv2dWorkload(*shape, dtype="fp16")
        return sorted(FAMILIES, key=lambda name: FAMILIES[name].rank(wl))

    assert order(1, 128, 128, 512, 512) == ["f44", "f23", "lane", "pkf"]
    assert order(1, 28, 28, 512, 512) == ["f44", "f23", "lane", "pkf"]
    assert order(1, 28, 28, 256, 256) == ["f23", "lane", "pkf", "f44"]
    assert order(1, 56, 56, 64, 64) == ["lane", "f23", "pkf", "f44"]


def test_no_family_module_imports_tvm() -> None:
    """The registry, the configs and the template families run on the GPU machine (no TVM)."""
    code = ("import wino_tvm.kernels, sys; "
            "assert not any(m == 'tvm' or m.startswith('tvm.') for m in sys.modules), "
            "sorted(m for m in sys.modules if m == 'tvm' or m.startswith('tvm.'))[:5]")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr


# --- config names -------------------------------------------------------------------------


def test_every_logged_config_name_parses_and_round_trips() -> None:
    records = _log_records()
    names = {r["config"]: r for r in records}
    assert len(names) == 752
    families = set()
    for name, record in names.items():
        meta, cfg = parse_config(name)
        assert meta == {"dtype": record["dtype"], "accum": record["accum"], "m": record["m"]}, name
        assert cfg.FAMILY == _family_of_name(name), name
        assert isinstance(cfg, CONFIGS[cfg.FAMILY])
        dims = {k.lower(): v for k, v in record["workload"].items()}
        wl = Conv2dWorkload(**dims, dtype=meta["dtype"], m=meta["m"], accum=meta["accum"])
        assert cfg.name(wl) == name
        # the record's fusion is the config's
        assert cfg.fusion == record["fusion"], name
        families.add(cfg.FAMILY)
    assert families == {"pkf", "lane", "f23"}


PKF = "fp16-fp32-m2-tbm16-tbn32-tbk64-frag16x16x16-full-vec16-pad16-pb-g2"
LANE = "fp16-fp16-m2-tbm16-tbn32-tbk64-frag16x8x16-full-vec16-pad16-pb-lane-wg-tma-g4-st3-ts2"
F23 = "fp16-fp32-m2-tbm128-tbn64-tbk16-frag64x64x16-full-vec16-pad16-pb-f23-sk-rp-st4"


def test_names_parse_to_their_family() -> None:
    assert parse_config(PKF) == ({"dtype": "fp16", "accum": "fp32", "m": 2}, PkfConfig(
        tb_m=16, tb_n=32, tb_k=64, fusion="full", persist=True, groups=2))
    assert parse_config(LANE) == ({"dtype": "fp16", "accum": "fp16", "m": 2}, LaneConfig(
        tb_n=32, tb_k=64, wgmma=True, tma=True, groups=4, stages=3, tap_split=2))
    assert parse_config(F23) == ({"dtype": "fp16", "accum": "fp32", "m": 2}, F23Config(
        persist=True, stream_k=True, row_pairs=True, stages=4))
    meta, cfg = parse_config("int8-int32-m4-tbm32-tbn32-tbk32-frag32x8x16-syncfree-vec16-pad0")
    assert meta == {"dtype": "int8", "accum": "int32", "m": 4}
    assert cfg == PkfConfig(tb_m=32, tb_n=32, tb_k=32, frag=(32, 8, 16), fusion="syncfree",
                            pad=0)


@pytest.mark.parametrize("bad", [
    # a token out of order
    PKF.replace("-vec16-pad16", "-pad16-vec16"),
    LANE.replace("-wg-tma", "-tma-wg"),
    LANE.replace("-st3-ts2", "-ts2-st3"),
    F23.replace("-sk-rp", "-rp-sk"),
    F23.replace("-pb-f23", "-f23-pb"),
    # a counted token at its default value, which names leave out
    PKF.replace("-g2", "-g1"),
    LANE.replace("-g4", "-g4-ks1"),
    LANE.replace("-st3", "-st2"),
    LANE.replace("-ts2", "-ts1"),
    F23 + "-cs1",
    PKF + "-oc1",
    # a lane token on an f23 name, an f23 token on a lane name, a pkf token on either
    F23.replace("-sk", "-wg-sk"),
    F23.replace("-st4", "-st4-ts2"),
    F23.replace("-f23", "-f23-xown"),
    LANE.replace("-st3", "-st3-cs2"),
    LANE.replace("-wg", "-wg-sk"),
    LANE + "-oc2",
    F23.replace("-pb", "-ul2-pb"),
    # an unknown token
    PKF + "-zz",
    LANE.replace("-wg", "-wgmma"),
    F23.replace("-f23", "-f32"),
    # a value outside the knob's domain
    LANE.replace("-tbn32", "-tbn48"),
    F23.replace("-st4", "-st5"),
    PKF.replace("-frag16x16x16", "-frag16x8x16"),
    # a truncated name
    "fp16-fp32-m2",
    "fp16-fp32-m2-tbm16-tbn32",
    PKF.split("-vec16")[0],
    LANE.split("-pb-lane")[0] + "-pb",
    F23.split("-pb-f23")[0],
    F23.removesuffix("-st4"),
    # a bad precision prefix
    PKF.replace("-m2-", "-mm-"),
    PKF.replace("-m2-", "-"),
])
def test_a_non_canonical_name_is_refused(bad: str) -> None:
    with pytest.raises(WinoError, match=f"{bad!r} is not a wino-tvm config name"):
        parse_config(bad)


# --- the knob machinery -------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FAMILIES))
def test_knob_table_makes_a_frozen_config(name: str) -> None:
    config = CONFIGS[name]
    knobs = [entry for entry in config.NAME_LAYOUT if isinstance(entry, Knob)]
    assert [k.name for k in knobs] == list(config.KNOBS)
    assert [f.name for f in dataclasses.fields(config)] == list(config.KNOBS)
    default = config()
    for knob in knobs:
        assert knob.default in knob.domain, knob.name
        assert set(knob.axis_values) <= set(knob.domain), knob.name
        assert getattr(default, knob.name) == knob.default
        assert knob.parse(knob.format(knob.default)) == knob.default
        for value in knob.domain:
            assert knob.parse(knob.format(value)) == value, (knob.name, value)
    assert default.as_dict() == {k.name: k.default for k in knobs}
    assert default.changed() == {}
    assert default.knob_problems() == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(default, knobs[0].name, knobs[0].default)
    # with_ changes one knob and keeps the others; changed() lists it
    knob = next(k for k in knobs if len(k.domain) > 1)
    other = next(v for v in knob.domain if v != knob.default)
    changed = default.with_(**{knob.name: other})
    assert changed.changed() == {knob.name: other} and changed != default
    assert getattr(default, knob.name) == knob.default  # default itself unchanged
    # each config's name is its tokens after the precision, and parses back
    wl = Conv2dWorkload(1, 56, 56, 64, 64, dtype="fp16", m=2, accum="fp32")
    assert default.name(wl) == "-".join(["fp16-fp32-m2", *default.tokens()])
    assert config.from_tokens(default.tokens()) == default
    fixed = [t for entry in config.NAME_LAYOUT if isinstance(entry, Fixed) for t in entry.tokens]
    assert all(t in default.tokens() for t in fixed)


def test_knob_tokens() -> None:
    stages = LaneConfig.KNOBS["stages"]
    assert stages.token_of(2) is None and stages.token_of(3) == "st3"  # counted: off at default
    assert LaneConfig.KNOBS["tb_n"].token_of(16) == "tbn16"  # always written
    assert LaneConfig.KNOBS["wgmma"].token_of(True) == "wg"  # a bool: its word when on
    assert LaneConfig.KNOBS["wgmma"].token_of(False) is None
    frag = PkfConfig.KNOBS["frag"]
    assert frag.format((32, 8, 16)) == "32x8x16" and frag.token_of((16, 16, 16)) == "frag16x16x16"
    assert PkfConfig.KNOBS["fusion"].token_of("shmem") == "shmem"
    assert F23Config.KNOBS["stages"].token_of(3) == "st3"  # always written
    assert F23Config.KNOBS["c_split"].token_of(1) is None


# --- --set values -------------------------------------------------------------------------


def test_from_settings_parses_each_value_type() -> None:
    # bools as 0/1/true/false (any case)
    for text, value in (("0", False), ("1", True), ("true", True), ("false", False),
                        ("True", True), ("FALSE", False)):
        assert LaneConfig.from_settings([f"wgmma={text}"]).wgmma is value
    # ints, with '-' for '_' in the knob and spaces around
    assert LaneConfig.from_settings(["tb_n=32", "tap-split=2", " stages = 3 "]) == LaneConfig(
        tb_n=32, tap_split=2, stages=3)
    # tuples as AxBxC, strings
    cfg = PkfConfig.from_settings(["frag=32x8x16", "fusion=full", "u_l2=1"])
    assert cfg == PkfConfig(frag=(32, 8, 16), fusion="full", u_l2=True)
    assert PkfConfig.from_settings(["frag=8x32x16"]).frag == (8, 32, 16)
    assert F23Config.from_settings(["persist=true", "stream_k=1", "stages=4"]) == F23Config(
        persist=True, stream_k=True, stages=4)
    # on a base: the others kept; a later setting wins
    base = LaneConfig(tb_n=32, tb_k=64, wgmma=True, groups=4)
    assert LaneConfig.from_settings(["stages=3"], base) == base.with_(stages=3)
    assert LaneConfig.from_settings(["stages=3", "stages=4"]).stages == 4
    assert LaneConfig.from_settings([]) == LaneConfig()


@pytest.mark.parametrize("config, item, message", [
    (LaneConfig, "wgmma=yes", "wgmma='yes': choose one of 0, 1"),
    (LaneConfig, "wgmma=2", "wgmma='2': choose one of 0, 1"),
    (LaneConfig, "tb_n=48", "tb_n='48': choose one of 16, 32, 64"),
    (LaneConfig, "tb_n=x", "tb_n='x': choose one of 16, 32, 64"),
    (LaneConfig, "groups=5", "groups='5': choose one of 1, 2, 3, 4, 6, 8, 10, 12"),
    (PkfConfig, "frag=16x8x16", "frag='16x8x16': choose one of 16x16x16, 32x8x16, 8x32x16"),
    (PkfConfig, "frag=16x16", "frag='16x16': choose one of 16x16x16, 32x8x16, 8x32x16"),
    (PkfConfig, "fusion=fused", "fusion='fused': choose one of none, syncfree, shmem, llc, full"),
    (F23Config, "stages=2", "stages='2': choose one of 3, 4"),
    (F23Config, "c_split=3", "c_split='3': choose one of 1, 2, 4"),
])
def test_from_settings_refuses_a_value_outside_the_domain(config: type[FamilyConfig], item: str,
                                                          message: str) -> None:
    with pytest.raises(WinoError) as raised:
        config.from_settings([item])
    assert str(raised.value) == message


@pytest.mark.parametrize("config, item, owners", [
    (LaneConfig, "fusion=full", "pkf"), (LaneConfig, "c_split=2", "f23"),
    (LaneConfig, "tb_m=16", "pkf"), (PkfConfig, "stages=3", "lane / f23 / f44"),
    (PkfConfig, "wgmma=1", "lane"), (F23Config, "tb_n=64", "pkf / lane"),
    (F23Config, "tap_split=2", "lane"), (LaneConfig, "tb_n", "pkf / lane"),
    (LaneConfig, "=16", None), (LaneConfig, "warp_k=16", None),
])
def test_from_settings_refuses_an_unknown_knob(config: type[FamilyConfig], item: str,
                                               owners: str | None) -> None:
    """One line listing the family's knobs, and the family that has the knob where one does."""
    with pytest.raises(WinoError) as raised:
        config.from_settings([item])
    key = item.partition("=")[0]
    hint = f": {key} is a knob of --family {owners}" if owners else ""
    assert str(raised.value) == (f"--set {item!r}: expected KNOB=VALUE with KNOB one of the "
                                 f"{config.FAMILY} family's {', '.join(config.KNOBS)}{hint}")


# --- knob requirements and domains --------------------------------------------------------


@pytest.mark.parametrize("cfg, problem", [
    (LaneConfig(stack=True), "lane: stack=1 needs tma and groups=4"),
    (LaneConfig(stack=True, tma=True), "lane: stack=1 needs tma and groups=4"),
    (LaneConfig(wgmma=True, groups=2), "lane: wgmma=1 needs groups a multiple of 4"),
    (LaneConfig(exchange_own=True), "lane: exchange_own=1 needs tap_split=2"),
    (LaneConfig(exchange_own=True, tap_split=2, stack=True, tma=True, groups=4),
     "lane: exchange_own=1 is implied by stack: drop it"),
    (PkfConfig(persist=True), "pkf: persist=1 needs fusion full"),
    (PkfConfig(persist=True, fusion="full", u_l2=True),
     "pkf: persist=1 needs U in shared memory (drop u_l2)"),
    (PkfConfig(groups=2), "pkf: groups=2 needs persist (pb)"),
    (PkfConfig(groups=2, k_split=2, persist=True, fusion="full"),
     "pkf: groups=2 does not go with k_split"),
    (PkfConfig(k_split=2), "pkf: k_split=2 needs persist (pb)"),
    (PkfConfig(m_rounds=2), "pkf: m_rounds=2 needs fusion full"),
    (PkfConfig(min_blocks=1, fusion="full"), "pkf: min_blocks=1 is 0 (none) or at least 2"),
    (F23Config(stream_k=True), "f23: stream_k=1 is a schedule of persistent blocks: add persist"),
    (F23Config(persist=True, c_split=2), "f23: persist=1 does not split C: drop c_split"),
    # domains, as a config built in code may hold anything
    (LaneConfig(tb_n=48), "lane: tb_n=48 is not one of 16, 32, 64"),
    (PkfConfig(frag=(16, 8, 16)), "pkf: frag=16x8x16 is not one of 16x16x16, 32x8x16, 8x32x16"),
    (F23Config(stages=5), "f23: stages=5 is not one of 3, 4"),
])
def test_knob_requirements_and_domains_are_problems(cfg: FamilyConfig, problem: str) -> None:
    assert problem in cfg.knob_problems()
    wl = Conv2dWorkload(1, 56, 56, 64, 64, dtype="fp16", m=2, accum="fp32")
    assert problem in cfg.problems(wl, H200)
    with pytest.raises(WinoError, match="is invalid: .*" + problem.replace("(", r"\(")
                       .replace(")", r"\)")):
        cfg.validate(wl, H200)


# --- each family's default, and what it supports ------------------------------------------

SHAPES = [(n, h, w, c, k) for n in (1, 8, 32)
          for h, w in ((7, 7), (14, 14), (28, 28), (56, 56), (224, 224), (13, 37))
          for c, k in itertools.product((64, 128, 256, 512), repeat=2)]
PRECISIONS = (("fp16", "fp32"), ("fp16", "fp16"), ("int8", "int32"), ("int8", "fp16"),
              ("int8", "fp32"))
# The precisions each family takes: it supports some workloads of the grid in each of them,
# none in the others.
TAKES = {("pkf", "fp16", "fp32"), ("pkf", "fp16", "fp16"), ("pkf", "int8", "int32"),
         ("lane", "fp16", "fp32"), ("lane", "fp16", "fp16"), ("lane", "int8", "fp16"),
         ("f23", "fp16", "fp32"), ("f23", "int8", "fp32"), ("f44", "fp16", "fp32")}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FAMILIES))
@pytest.mark.parametrize("dtype, accum", PRECISIONS)
def test_default_is_valid_wherever_the_family_supports_the_workload(name: str, dtype: str,
                                                                   accum: str) -> None:
    fam = family(name)
    supported = 0
    for shape in SHAPES:
        probe = Conv2dWorkload(*shape, dtype=dtype, m=2, accum=accum)
        for m in fam.tile_sizes(probe) or (2,):
            wl = dataclasses.replace(probe, m=m)
            why = fam.supports(wl, H200)
            if why is None:
                supported += 1
                cfg = fam.default(wl, H200)
                assert cfg.FAMILY == name and cfg.problems(wl, H200) == [], (wl, cfg)
            else:
                # a reason naming the family
                assert isinstance(why, str) and why.startswith(name), (wl, why)
    assert (supported > 0) == ((name, dtype, accum) in TAKES), supported


@pytest.mark.parametrize("name, wl, reason", [
    # C = 512: U's rows of all channels for 16 output channels exceed the shared memory
    ("lane", Conv2dWorkload(32, 7, 7, 512, 512, dtype="fp16", m=2, accum="fp32"),
     "lane: no config fits NVIDIA H200: U of all C=512 channels for 16 output channels and one "
     "patch take"),
    # K = 96: a block's 64 output channels
    ("f23", Conv2dWorkload(1, 224, 224, 64, 96, dtype="fp16", m=2, accum="fp32"),
     "f23: K=96 must be a multiple of 64"),
    ("lane", Conv2dWorkload(1, 56, 56, 64, 64, dtype="int8", m=2, accum="int32"),
     "lane takes fp16 (fp32 or fp16 accumulators) and int8 (fp16 accumulators) at m=2, not "
     "int8/int32 at m=2"),
    ("lane", Conv2dWorkload(1, 56, 56, 64, 64, dtype="fp16", m=4, accum="fp32"),
     "lane takes fp16 (fp32 or fp16 accumulators) and int8 (fp16 accumulators) at m=2, not "
     "fp16/fp32 at m=4"),
    ("f23", Conv2dWorkload(32, 14, 14, 256, 256, dtype="fp16", m=2, accum="fp16"),
     "f23 takes fp16 and int8 with fp32 accumulators at m=2, not fp16/fp16 at m=2"),
    ("pkf", Conv2dWorkload(1, 56, 56, 64, 64, dtype="int8", m=2, accum="fp16"),
     "pkf takes fp16 (fp32 or fp16 accumulators) and int8 (int32) at m=2 or 4, not int8/fp16 "
     "at m=2"),
])
def test_supports_names_the_family_where_it_refuses(name: str, wl: Conv2dWorkload,
                                                    reason: str) -> None:
    why = family(name).supports(wl, H200)
    assert why is not None and why.startswith(name) and reason in why, why


def test_supports_accepts_each_familys_home_ground() -> None:
    fp16 = Conv2dWorkload(1, 224, 224, 64, 64, dtype="fp16", m=2, accum="fp32")
    resnet = Conv2dWorkload(32, 14, 14, 256, 256, dtype="fp16", m=2, accum="fp32")
    assert family("pkf").supports(fp16, H200) is None
    assert family("lane").supports(fp16, H200) is None
    assert family("f23").supports(resnet, H200) is None
    assert family("lane").default(fp16, H200).FAMILY == "lane"
    assert family("f23").default(resnet, H200).FAMILY == "f23"
    # the pkf family's default is the paper's PKF-Shmem-16
    assert family("pkf").default(fp16, H200) == PkfConfig(fusion="shmem")
