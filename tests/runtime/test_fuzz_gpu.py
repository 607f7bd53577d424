"""Shape fuzzing on the GPU, a fixed-seed subset (wino_tvm.bench.fuzz has the full run): every
case correct against float64, no non-finite output, no unwritten element."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_fixed_seed_fuzz_cases_are_correct(tmp_path, monkeypatch):
    monkeypatch.setenv("WINO_TVM_CACHE", str(tmp_path))
    from wino_tvm.bench.fuzz import cases, run_all

    rows = run_all(cases(seed=7, count=24))
    wrong = [row for row in rows if not row["correct"]]
    assert not wrong, wrong


def test_f44_is_correct_where_y_nears_the_top_of_fp16(tmp_path, monkeypatch):
    """|y| up to 30000: unscaled, f44's M (5x |y|) overflowed fp16 on all of these."""
    monkeypatch.setenv("WINO_TVM_CACHE", str(tmp_path))
    from wino_tvm.bench.fuzz import cases, run_all

    large = [c for c in cases(seed=53, count=16, families=("f44",)) if c.scale == "large"]
    rows = run_all(large[:4], large=30000.0)
    wrong = [row for row in rows if not row["correct"]]
    assert len(rows) == 4 and not wrong, wrong
