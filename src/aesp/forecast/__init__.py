"""AESP load forecasting: panels of load series, forecasters, baselines and the backtest.

Torch models live in :mod:`aesp.forecast.models` and are imported only when used
(:func:`aesp.forecast.registry.create`).
"""

from aesp.forecast.backtest import BacktestConfig, BacktestReport, run_backtest
from aesp.forecast.base import QUANTILE_LEVELS, Forecast, Forecaster, ModelState
from aesp.forecast.datasets import READERS, DatasetError, load_dataset
from aesp.forecast.panel import Panel, steps_for
from aesp.forecast.registry import ALL_MODELS, create, load_forecaster, save_forecaster

__all__ = [
    "ALL_MODELS",
    "QUANTILE_LEVELS",
    "READERS",
    "BacktestConfig",
    "BacktestReport",
    "DatasetError",
    "Forecast",
    "Forecaster",
    "ModelState",
    "Panel",
    "create",
    "load_dataset",
    "load_forecaster",
    "run_backtest",
    "save_forecaster",
    "steps_for",
]
