"""Fixtures shared by the whole suite: the location of the real trace data."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
"""``../shared/data`` beside the project checkout; absent on a fresh clone."""
OPENB_DIR = SHARED_DATA / "alibaba-gpu-2023"


@pytest.fixture
def data_dir() -> Path:
    """``../shared/data`` beside the project; skips when it is absent (e.g. a fresh clone)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real trace data not found at {SHARED_DATA.resolve()} (see shared/data/README.md)")
    return SHARED_DATA


@pytest.fixture
def openb_dir() -> Path:
    """The OpenB GPU trace directory; skips the test when the shared data is absent."""
    if not (OPENB_DIR / "openb_pod_list_default.csv").is_file():
        pytest.skip(f"OpenB trace not found under {OPENB_DIR.resolve()} (see shared/data/README.md)")
    return OPENB_DIR
