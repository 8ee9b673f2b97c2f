"""Shared fixtures for the perception tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def nab_dir(data_dir: Path) -> Path:
    """The labelled NAB AWS series, or a skip when the shared data is absent."""
    path = data_dir / "nab-aws"
    if not (path / "combined_windows.json").exists():
        pytest.skip(f"NAB data not found at {path.resolve()} (needs ../shared/data/nab-aws)")
    return path
