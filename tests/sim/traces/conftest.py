"""Fixtures for the trace reader tests: the shared real data and small files written to tmp_path."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

DATA_DIR = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"

WriteTrace = Callable[..., Path]


@pytest.fixture
def data_dir() -> Path:
    """``../shared/data`` beside the project; skips when it is absent (e.g. a fresh clone)."""
    if not DATA_DIR.is_dir():
        pytest.skip(
            f"real trace data not found at {DATA_DIR.resolve()} (see shared/data/README.md)"
        )
    return DATA_DIR


@pytest.fixture
def write_trace(tmp_path: Path) -> WriteTrace:
    """Write text lines to ``tmp_path/name``, gzip-compressed when ``gz`` is true."""

    def write(name: str, *lines: str, gz: bool = False) -> Path:
        path = tmp_path / name
        data = "".join(f"{line}\n" for line in lines).encode()
        path.write_bytes(gzip.compress(data) if gz else data)
        return path

    return write
