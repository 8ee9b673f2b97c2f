"""Rolling-origin backtest: splits, scoring, and a real-data smoke run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesp.forecast.backtest import (
    METRIC_NAMES,
    BacktestConfig,
    backtest_origins,
    run_backtest,
    score,
)
from aesp.forecast.base import QUANTILE_LEVELS, Forecast
from aesp.forecast.datasets import load_dataset
from aesp.forecast.panel import Panel
from aesp.forecast.registry import factory


def test_backtest_origins_stay_in_the_test_split() -> None:
    # T = 100, test 20 % -> t_test = 80; last origin 100 - 3 = 97; 18 candidates, stride >= 3
    t_test, origins = backtest_origins(100, 3, BacktestConfig(max_origins=300))
    assert t_test == 80
    assert origins.tolist() == [80, 83, 86, 89, 92, 95]
    # max_origins 2 -> stride ceil(18 / 2) = 9 -> 80, 89
    assert backtest_origins(100, 3, BacktestConfig(max_origins=2))[1].tolist() == [80, 89]


def test_too_short_panel() -> None:
    with pytest.raises(ValueError, match="too few"):
        backtest_origins(3, 3, BacktestConfig())


def _perfect(panel: Panel, origins: np.ndarray, horizon: int) -> Forecast:
    idx = origins[:, None] + np.arange(horizon)[None, :]
    point = panel.values[:, idx]
    quantiles = np.repeat(point[:, :, None, :], len(QUANTILE_LEVELS), axis=2)
    return Forecast(point=point, quantiles=quantiles, origins=origins)


def test_perfect_forecast_scores_zero(panel: Panel) -> None:
    result = score(_perfect(panel, np.array([500, 550]), 3), panel, 480)
    assert result["mae"] == 0.0 and result["rmse"] == 0.0 and result["mase"] == 0.0


def test_run_backtest_reports_every_metric(panel: Panel) -> None:
    report = run_backtest(panel, {"seasonal_naive": factory("seasonal_naive")})
    assert report.horizon_steps == 3 and report.n_series == 3
    assert set(METRIC_NAMES) <= set(report.models["seasonal_naive"])


def test_real_nab_baselines(data_dir: Path) -> None:
    panel = load_dataset("nab", data_dir / "nab-aws", max_series=2)
    report = run_backtest(panel, {"ewma": factory("ewma"), "naive": factory("seasonal_naive")})
    assert report.horizon_steps == 3
    for values in report.models.values():
        assert 0.0 < values["mae"] <= values["rmse"]
        assert 0.0 <= values["burst_share"] <= 1.0
