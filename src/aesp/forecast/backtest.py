"""Rolling-origin backtest (Tashman 2000) over the last part of every series.

The panel's first ``1 - test_fraction`` of steps is the training split; each model is fitted on
it once. Forecast origins are spread over the test part (at most ``max_origins``, at least
``H`` steps apart); at origin ``o`` a model sees ``values[:, :o]`` (observed test data up to the
origin, no refit) and forecasts ``values[:, o:o + H]``. Imputed targets are not scored.
Scales for MASE, MAPE's epsilon and the burst threshold come from the training split only
(see :mod:`aesp.forecast.metrics`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from aesp.forecast import metrics
from aesp.forecast.base import Forecast, Forecaster
from aesp.forecast.panel import IntArray, Panel, steps_for

METRIC_NAMES = ("mae", "rmse", "smape", "mape", "mase", "burst_mae", "fit_s", "predict_ms")


@dataclass(frozen=True)
class BacktestConfig:
    """How to backtest."""

    horizon_s: int = 900
    """Forecast horizon (15 min); steps = round(horizon_s / step_s)."""
    test_fraction: float = 0.2
    max_origins: int = 300
    burst_k: float = metrics.BURST_K


@dataclass
class BacktestReport:
    """Results of one backtest: per model, the :data:`METRIC_NAMES` values."""

    horizon_steps: int
    n_series: int
    n_origins: int
    models: dict[str, dict[str, float]] = field(default_factory=dict)


def backtest_origins(
    n_steps: int, horizon_steps: int, config: BacktestConfig
) -> tuple[int, IntArray]:
    """Start of the test split and the forecast origins in it."""
    t_test = int(n_steps * (1.0 - config.test_fraction))
    last = n_steps - horizon_steps
    if t_test < 2 or last < t_test:
        raise ValueError(f"{n_steps} steps are too few for a {horizon_steps}-step backtest")
    stride = max(horizon_steps, math.ceil((last - t_test + 1) / config.max_origins))
    return t_test, np.arange(t_test, last + 1, stride, dtype=np.int64)


def score(
    forecast: Forecast, panel: Panel, t_test: int, burst_k: float = metrics.BURST_K
) -> dict[str, float]:
    """Accuracy metrics of ``forecast`` against the panel's actual values."""
    horizon = forecast.point.shape[2]
    idx = forecast.origins[:, None] + np.arange(horizon)[None, :]
    y, valid = panel.values[:, idx], panel.observed[:, idx]
    y_hat = forecast.point
    train = panel.values[:, :t_test]
    y_last = panel.values[:, forecast.origins - 1]
    bursts = valid & metrics.burst_points(y, y_last, metrics.change_sigma(train, horizon), burst_k)
    scale = metrics.naive_scale(train, panel.observed[:, :t_test])[:, None, None]
    eps = metrics.mape_eps(train)[:, None, None]
    return {
        "mae": metrics.mae(y, y_hat, valid),
        "rmse": metrics.rmse(y, y_hat, valid),
        "smape": metrics.smape(y, y_hat, valid),
        "mape": metrics.mape(y, y_hat, valid, eps),
        "mase": metrics.mase(y, y_hat, valid, scale),
        "burst_mae": metrics.mae(y, y_hat, bursts),
        "burst_share": float(bursts.sum() / max(valid.sum(), 1)),
    }


def evaluate_model(
    make: Callable[[], Forecaster], panel: Panel, config: BacktestConfig
) -> dict[str, float]:
    """Fit on the training split, forecast every origin, score; add ``fit_s``, ``predict_ms``.

    ``predict_ms`` is the median wall time of one forecast for all series at a single origin.
    """
    horizon = steps_for(config.horizon_s, panel.step_s)
    t_test, origins = backtest_origins(panel.n_steps, horizon, config)
    model = make()
    started = time.perf_counter()
    model.fit(panel.head(t_test), horizon)
    fit_s = time.perf_counter() - started
    result = score(model.predict(panel, horizon, origins), panel, t_test, config.burst_k)
    result["fit_s"] = fit_s
    result["predict_ms"] = _latency_ms(model, panel, horizon, origins[-1:])
    return result


def _latency_ms(model: Forecaster, panel: Panel, horizon: int, origin: IntArray) -> float:
    times: list[float] = []
    for _ in range(3):
        started = time.perf_counter()
        model.predict(panel, horizon, origin)
        times.append(time.perf_counter() - started)
    return 1000.0 * float(np.median(times))


def run_backtest(
    panel: Panel,
    models: dict[str, Callable[[], Forecaster]],
    config: BacktestConfig | None = None,
    on_result: Callable[[str, dict[str, float]], None] | None = None,
) -> BacktestReport:
    """Backtest every model on ``panel``; ``on_result`` is called as each finishes."""
    config = config or BacktestConfig()
    horizon = steps_for(config.horizon_s, panel.step_s)
    _, origins = backtest_origins(panel.n_steps, horizon, config)
    report = BacktestReport(horizon, panel.n_series, int(origins.size))
    for name, make in models.items():
        report.models[name] = evaluate_model(make, panel, config)
        if on_result is not None:
            on_result(name, report.models[name])
    return report


def relative_change(value: float, reference: float) -> float:
    """``(value - reference) / reference`` (negative = lower than the reference)."""
    return (value - reference) / reference if reference else float("nan")
