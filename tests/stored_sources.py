"""Stored TVM output the reconstructor tests run on (tests/fixtures/reconstructor/)."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "reconstructor"


def stored(name: str) -> tuple[str, list[dict]]:
    """(CUDA source, launches) of the stored prototype NAME.cu / NAME.launches.json."""
    return ((FIXTURES / f"{name}.cu").read_text(),
            json.loads((FIXTURES / f"{name}.launches.json").read_text()))
