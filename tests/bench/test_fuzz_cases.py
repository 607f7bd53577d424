"""The fuzz's case drawing (CPU): reproducible, every case valid for its family, and a case
survives the trip through its case.json to the GPU machine."""

from __future__ import annotations

from wino_tvm.bench.fuzz_cases import FuzzCase, cases
from wino_tvm.device import KNOWN_DEVICES
from wino_tvm.kernels import FAMILIES

H200 = KNOWN_DEVICES["h200"]


def test_cases_are_reproducible_valid_and_round_trip() -> None:
    families = ("lane", "f23", "f44", "pkf")
    drawn = cases(seed=3, count=32, families=families)
    assert drawn == cases(seed=3, count=32, families=families)
    assert {c.cfg.FAMILY for c in drawn} == set(families)
    assert {c.wl.m for c in drawn if c.cfg.FAMILY == "f44"} == {4}
    # every family's fp16 precisions, no int8 (it needs quantised inputs)
    assert {(c.cfg.FAMILY, c.wl.dtype, c.wl.accum) for c in drawn} == {
        ("lane", "fp16", "fp16"), ("lane", "fp16", "fp32"), ("f23", "fp16", "fp32"),
        ("f44", "fp16", "fp32"), ("pkf", "fp16", "fp16"), ("pkf", "fp16", "fp32")}
    assert {c.kind for c in drawn} == {"default", "random"}
    for case in drawn:
        assert FAMILIES[case.cfg.FAMILY].supports(case.wl, H200) is None
        assert case.cfg.problems(case.wl, H200) == [], case.cfg.name(case.wl)
        assert FuzzCase.from_json(case.to_json()) == case


def test_template_cases_by_default() -> None:
    assert {c.cfg.FAMILY for c in cases(seed=0, count=30)} == {"lane", "f23", "f44"}
