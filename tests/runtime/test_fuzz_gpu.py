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
