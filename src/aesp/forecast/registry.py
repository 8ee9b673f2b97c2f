"""Forecasters by name, and loading a saved one. Torch models are imported only when asked for."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from aesp.forecast.base import Forecaster, ModelState, read_state, save_state
from aesp.forecast.baselines import EWMA, AutoARIMABaseline, AutoETSBaseline, SeasonalNaive

BASELINES: tuple[str, ...] = ("seasonal_naive", "ewma", "auto_arima", "auto_ets")
DEEP_MODELS: tuple[str, ...] = ("tcn", "lstm_transformer", "two_stage", "spatial_gnn")
ALL_MODELS: tuple[str, ...] = BASELINES + DEEP_MODELS


def _model_classes() -> dict[str, Any]:
    classes: dict[str, Any] = {
        "seasonal_naive": SeasonalNaive,
        "ewma": EWMA,
        "auto_arima": AutoARIMABaseline,
        "auto_ets": AutoETSBaseline,
    }
    from aesp.forecast import models

    classes.update(
        tcn=models.TCNForecaster,
        lstm_transformer=models.HybridForecaster,
        two_stage=models.TwoStageForecaster,
        spatial_gnn=models.SpatialForecaster,
    )
    return classes


def create(name: str, **train_overrides: Any) -> Forecaster:
    """A new, unfitted forecaster. ``train_overrides`` go to deep models' ``TrainConfig``."""
    if name not in ALL_MODELS:
        raise KeyError(f"unknown model {name!r}; choose from {', '.join(ALL_MODELS)}")
    if name in BASELINES:
        baseline: Forecaster = _model_classes()[name]()
        return baseline
    model: Forecaster = _model_classes()[name](**train_overrides)
    return model


def factory(name: str, **train_overrides: Any) -> Callable[[], Forecaster]:
    """A zero-argument constructor for :func:`create` (validates the name now)."""
    if name not in ALL_MODELS:
        raise KeyError(f"unknown model {name!r}; choose from {', '.join(ALL_MODELS)}")
    return lambda: create(name, **train_overrides)


def save_forecaster(model: Forecaster, path: Path) -> None:
    """Write a fitted forecaster to ``path`` (see :mod:`aesp.forecast.base` for the format)."""
    save_state(model.to_state(), path)


def load_forecaster(path: Path) -> Forecaster:
    """Read a file written by :func:`save_forecaster`."""
    state: ModelState = read_state(path)
    classes = _model_classes()
    if state.name not in classes:
        raise ValueError(f"{path}: unknown model {state.name!r}")
    model: Forecaster = classes[state.name].from_state(state)
    return model
