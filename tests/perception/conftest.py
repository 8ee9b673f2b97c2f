"""Shared fixtures for the perception tests."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


@pytest.fixture
def nab_dir() -> Path:
    """The labelled NAB AWS series, or a skip when the shared data is absent."""
    path = DATA_DIR / "nab-aws"
    if not (path / "combined_windows.json").exists():
        pytest.skip(f"NAB data not found at {path.resolve()} (needs ../shared/data/nab-aws)")
    return path
