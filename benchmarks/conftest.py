"""Benchmarks are collected only when asked for: ``pytest benchmarks -m benchmark -s``.

``testpaths`` in pyproject.toml names only ``tests``, so the directory must be passed
explicitly; the default ``-m 'not slow and not benchmark'`` would deselect these anyway.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
OPENB_DIR = SHARED_DATA / "alibaba-gpu-2023"


@pytest.fixture
def openb_dir() -> Path:
    """The OpenB GPU trace directory; skips when the shared data is absent."""
    if not (OPENB_DIR / "openb_pod_list_default.csv").is_file():
        pytest.skip(f"OpenB trace not found under {OPENB_DIR.resolve()} (see shared/data/README.md)")
    return OPENB_DIR


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    """Collect ``bench_*.py`` here (pytest's default only collects ``test_*.py``)."""
    if file_path.suffix == ".py" and file_path.name.startswith("bench_"):
        return pytest.Module.from_parent(parent, path=file_path)
    return None
