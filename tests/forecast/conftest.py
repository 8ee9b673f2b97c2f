"""Shared fixtures: the public traces (skipped when absent) and small synthetic panels."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.forecast.panel import Panel


def synthetic_panel(n_series: int = 3, n_steps: int = 600, step_s: int = 300) -> Panel:
    """Daily sine + noise + rare bursts, seeded."""
    rng = np.random.default_rng(7)
    t = np.arange(n_steps)
    day = 86_400 // step_s
    base = 40 + 20 * np.sin(2 * np.pi * t / day)[None, :] + rng.normal(0, 2, (n_series, n_steps))
    bursts = (rng.random((n_series, n_steps)) < 0.02) * 25.0
    values = base + np.arange(n_series)[:, None] * 5 + bursts
    observed = np.ones_like(values, dtype=bool)
    observed[0, 100:105] = False
    return Panel(
        series_ids=tuple(f"s{i}" for i in range(n_series)),
        values=values,
        observed=observed,
        step_s=step_s,
        start_s=np.full(n_series, 1_372_629_600, dtype=np.int64),
        unit="percent",
    )


@pytest.fixture
def panel() -> Panel:
    """A small synthetic panel: 3 series, 600 five-minute steps."""
    return synthetic_panel()
