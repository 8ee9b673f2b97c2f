"""Baselines on hand-checkable series."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.forecast.baselines import EWMA, AutoARIMABaseline, SeasonalNaive, ewma_levels
from aesp.forecast.panel import Panel


def _panel(values: list[float], step_s: int = 300) -> Panel:
    arr = np.array([values], dtype=np.float64)
    return Panel(("a",), arr, np.ones_like(arr, bool), step_s, np.zeros(1, np.int64))


def test_seasonal_naive_repeats_last_season() -> None:
    # season 3, origin 6: history [1,2,3,4,5,6] -> forecasts y[3], y[4], y[5], y[3] = 4, 5, 6, 4
    panel = _panel([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    model = SeasonalNaive(season_steps=3)
    model.fit(panel, 4)
    forecast = model.predict(panel, 4, np.array([6]))
    assert forecast.point[0, 0].tolist() == [4, 5, 6, 4]


def test_seasonal_naive_falls_back_to_naive_one() -> None:
    # a day of 5-min steps is 288 > 5 points of history -> naive-1: repeat y[4] = 5
    panel = _panel([1, 2, 3, 4, 5])
    model = SeasonalNaive()
    model.fit(panel, 2)
    assert model.predict(panel, 2).point[0, 0].tolist() == [5, 5]


def test_ewma_levels() -> None:
    # alpha 0.5: level 2; 0.5*4 + 0.5*2 = 3; 0.5*0 + 0.5*3 = 1.5
    assert ewma_levels(np.array([2.0, 4.0, 0.0]), 0.5).tolist() == [2.0, 3.0, 1.5]


def test_ewma_picks_alpha_one_on_a_random_walk() -> None:
    walk = np.cumsum(np.random.default_rng(0).normal(size=500)).tolist()
    model = EWMA()
    model.fit(_panel(walk), 3)
    assert model.alpha_by_series["a"] >= 0.9


def test_auto_arima_forecasts_a_trend() -> None:
    # y = 2t: the forecast from origin 100 continues near 200, 202, 204
    panel = _panel([2.0 * t for t in range(120)])
    model = AutoARIMABaseline()
    model.fit(panel.head(100), 3)
    forecast = model.predict(panel, 3, np.array([100]))
    assert forecast.point[0, 0] == pytest.approx([200, 202, 204], abs=1.0)
    assert model.fallbacks == 0
