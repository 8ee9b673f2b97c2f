"""The Forecaster contract, checked for every registered model with tiny training budgets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesp.forecast.base import QUANTILE_LEVELS, Forecaster
from aesp.forecast.panel import Panel
from aesp.forecast.registry import ALL_MODELS, DEEP_MODELS, create, load_forecaster, save_forecaster

TINY = {
    "context_steps": 16,
    "hidden": 8,
    "max_epochs": 2,
    "steps_per_epoch": 3,
    "batch_size": 16,
    "max_val_windows": 64,
}
HORIZON = 3
ORIGINS = np.array([480, 500, 540, 597])


def _fitted(name: str, panel: Panel) -> Forecaster:
    model = create(name, **TINY) if name in DEEP_MODELS else create(name)
    model.fit(panel.head(450), HORIZON)
    return model


@pytest.mark.parametrize("name", ALL_MODELS)
def test_contract(name: str, panel: Panel, tmp_path: Path) -> None:
    model = _fitted(name, panel)
    assert isinstance(model, Forecaster)
    forecast = model.predict(panel, HORIZON, ORIGINS)

    # shapes, finiteness, sorted quantiles, point = p50 ordering sane
    assert forecast.point.shape == (3, ORIGINS.size, HORIZON)
    assert forecast.quantiles.shape == (3, ORIGINS.size, len(QUANTILE_LEVELS), HORIZON)
    assert np.isfinite(forecast.quantiles).all()
    assert (np.diff(forecast.quantiles, axis=2) >= 0).all()
    assert forecast.origins.tolist() == ORIGINS.tolist()

    # no leakage: changing everything at or after the first origin leaves its forecast alone
    changed = panel.values.copy()
    changed[:, ORIGINS[0] :] += 1000.0
    leaked = Panel(panel.series_ids, changed, panel.observed, panel.step_s, panel.start_s)
    again = model.predict(leaked, HORIZON, ORIGINS[:1])
    np.testing.assert_allclose(again.quantiles, forecast.quantiles[:, :1], rtol=1e-6, atol=1e-6)

    # save/load round trip reproduces the forecasts
    file = tmp_path / f"{name}.model"
    save_forecaster(model, file)
    loaded = load_forecaster(file)
    assert loaded.name == name
    restored = loaded.predict(panel, HORIZON, ORIGINS)
    np.testing.assert_allclose(restored.quantiles, forecast.quantiles, rtol=1e-6, atol=1e-6)

    # default origin = end of the panel
    assert model.predict(panel, HORIZON).point.shape == (3, 1, HORIZON)


@pytest.mark.parametrize("name", DEEP_MODELS)
def test_deep_model_rejects_longer_horizon(name: str, panel: Panel) -> None:
    model = _fitted(name, panel)
    with pytest.raises(ValueError, match="trained for 3 steps"):
        model.predict(panel, HORIZON + 1)


def test_deep_model_unknown_series_scaled_on_history(panel: Panel) -> None:
    # a fitted model can forecast series it never saw (scaled on their own history)
    model = _fitted("tcn", panel)
    other = Panel(("x", "y"), panel.values[:2] * 2, panel.observed[:2], 300, panel.start_s[:2])
    assert np.isfinite(model.predict(other, HORIZON).point).all()


def test_training_is_seeded(panel: Panel) -> None:
    first = _fitted("tcn", panel).predict(panel, HORIZON, ORIGINS).point
    second = _fitted("tcn", panel).predict(panel, HORIZON, ORIGINS).point
    np.testing.assert_array_equal(first, second)


def test_unknown_model_name() -> None:
    with pytest.raises(KeyError, match="unknown model"):
        create("prophet")
