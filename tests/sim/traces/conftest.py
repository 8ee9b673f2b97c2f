"""Fixtures for the trace reader tests: the shared real data and small files written to tmp_path."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

WriteTrace = Callable[..., Path]


@pytest.fixture
def write_trace(tmp_path: Path) -> WriteTrace:
    """Write text lines to ``tmp_path/name``, gzip-compressed when ``gz`` is true."""

    def write(name: str, *lines: str, gz: bool = False) -> Path:
        path = tmp_path / name
        data = "".join(f"{line}\n" for line in lines).encode()
        path.write_bytes(gzip.compress(data) if gz else data)
        return path

    return write
