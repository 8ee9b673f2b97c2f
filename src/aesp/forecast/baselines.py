"""Baseline forecasters every model must beat: seasonal naive, EWMA, AutoARIMA and AutoETS.

Seasonal naive and EWMA produce quantiles by adding empirical quantiles of their own past errors
(computed only from history before the first requested origin). AutoARIMA and AutoETS are
``statsforecast`` models (Hyndman & Khandakar 2008; Hyndman et al. 2002) fitted per series on a
capped tail of the training split and re-applied at each origin with fixed parameters
(``forward``); their p10/p90 come from the models' 80 % normal prediction intervals.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.signal import lfilter

from aesp.forecast.base import (
    Forecast,
    ModelState,
    empirical_offsets,
    make_forecast,
    resolve_origins,
)
from aesp.forecast.panel import FloatArray, IntArray, Panel

SECONDS_PER_DAY = 86_400


def daily_season_steps(step_s: int) -> int:
    """Steps in one day (288 at 300 s, 1440 at 60 s)."""
    return max(1, round(SECONDS_PER_DAY / step_s))


def _history_errors(
    panel: Panel, horizon_steps: int, first_origin: int, point_at: Any, max_origins: int = 2000
) -> FloatArray:
    """Errors ``actual - forecast`` of ``point_at(origins)`` on history before ``first_origin``.

    Shapes:
        returns (S, N, H); NaN where the actual was imputed.
    """
    last = first_origin - horizon_steps
    if last < 2:
        return np.full((panel.n_series, 1, horizon_steps), np.nan)
    origins = np.unique(np.linspace(1, last, min(max_origins, last)).astype(np.int64))
    idx = origins[:, None] + np.arange(horizon_steps)[None, :]
    actual = np.where(panel.observed[:, idx], panel.values[:, idx], np.nan)
    errors: FloatArray = actual - point_at(origins)
    return errors


class SeasonalNaive:
    """``y_hat[o + h] = y[o + h - m * ceil((h + 1) / m)]`` with ``m`` one day of steps.

    Falls back to naive-1 (``m = 1``) when the history before an origin is shorter than ``m``.
    """

    name = "seasonal_naive"

    def __init__(self, season_steps: int | None = None) -> None:
        self.season_steps = season_steps

    def fit(self, panel: Panel, horizon_steps: int) -> None:
        """Nothing to learn; fixes the season length from the panel's step if not given."""
        if self.season_steps is None:
            self.season_steps = daily_season_steps(panel.step_s)

    def _point(self, values: FloatArray, origins: IntArray, horizon_steps: int) -> FloatArray:
        season = self.season_steps or 1
        season = season if origins.min() >= season else 1
        h = np.arange(horizon_steps)
        back = season * ((h // season) + 1)
        idx = origins[:, None] + h[None, :] - back[None, :]
        return values[:, idx]

    def predict(
        self, panel: Panel, horizon_steps: int, origins: IntArray | None = None
    ) -> Forecast:
        """Seasonal naive point forecast plus empirical error quantiles."""
        resolved = resolve_origins(panel, horizon_steps, origins)
        point = self._point(panel.values, resolved, horizon_steps)
        errors = _history_errors(
            panel,
            horizon_steps,
            int(resolved.min()),
            lambda o: self._point(panel.values, o, horizon_steps),
        )
        return make_forecast(point, empirical_offsets(errors), resolved)

    def to_state(self) -> ModelState:
        """Config only: the model has no fitted parameters."""
        return ModelState(self.name, {"season_steps": self.season_steps})

    @classmethod
    def from_state(cls, state: ModelState) -> SeasonalNaive:
        """Rebuild from :meth:`to_state`."""
        return cls(season_steps=state.config["season_steps"])


def ewma_levels(values: FloatArray, alpha: float) -> FloatArray:
    """``level[t] = alpha * y[t] + (1 - alpha) * level[t - 1]``, ``level[0] = y[0]``.

    Shapes:
        values: (T,) -> (T,).
    """
    zi = np.array([(1.0 - alpha) * values[0]])
    levels, _ = lfilter([alpha], [1.0, -(1.0 - alpha)], values, zi=zi)
    return np.asarray(levels, dtype=np.float64)


class EWMA:
    """Exponentially weighted moving average (simple exponential smoothing, flat forecast).

    ``alpha`` is chosen per series on the training split by minimising the one-step squared
    error over a grid; unknown series at prediction time use the median fitted alpha.
    """

    name = "ewma"
    ALPHA_GRID = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0)

    def __init__(self) -> None:
        self.alpha_by_series: dict[str, float] = {}

    def fit(self, panel: Panel, horizon_steps: int) -> None:
        """Choose alpha per series."""
        for s, sid in enumerate(panel.series_ids):
            y = panel.values[s]
            sse = [float(np.sum((y[1:] - ewma_levels(y, a)[:-1]) ** 2)) for a in self.ALPHA_GRID]
            self.alpha_by_series[sid] = self.ALPHA_GRID[int(np.argmin(sse))]

    def _alphas(self, panel: Panel) -> list[float]:
        default = float(np.median(list(self.alpha_by_series.values()) or [0.5]))
        return [self.alpha_by_series.get(sid, default) for sid in panel.series_ids]

    def predict(
        self, panel: Panel, horizon_steps: int, origins: IntArray | None = None
    ) -> Forecast:
        """Flat forecast at the smoothed level of ``y[o - 1]``, plus error quantiles."""
        resolved = resolve_origins(panel, horizon_steps, origins)
        levels = np.stack(
            [ewma_levels(panel.values[s], a) for s, a in enumerate(self._alphas(panel))]
        )

        def point_at(o: IntArray) -> FloatArray:
            return np.repeat(levels[:, o - 1][:, :, None], horizon_steps, axis=2)

        errors = _history_errors(panel, horizon_steps, int(resolved.min()), point_at)
        return make_forecast(point_at(resolved), empirical_offsets(errors), resolved)

    def to_state(self) -> ModelState:
        """The fitted alpha per series."""
        return ModelState(self.name, {"alpha_by_series": self.alpha_by_series})

    @classmethod
    def from_state(cls, state: ModelState) -> EWMA:
        """Rebuild from :meth:`to_state`."""
        model = cls()
        model.alpha_by_series = dict(state.config["alpha_by_series"])
        return model


@dataclass(frozen=True)
class StatsConfig:
    """Settings shared by the statsforecast baselines."""

    fit_history_steps: int = 1024
    """Fit on at most this many of the latest training points per series (keeps fitting fast)."""
    context_steps: int = 512
    """Re-apply the fitted model to at most this many points before each origin."""
    season_length: int = 1
    """1 = non-seasonal. A daily season at 5-min data (288) is far too slow for AutoARIMA and
    statsforecast's ETS refuses seasons over 24, so both stay non-seasonal by default; the
    seasonal naive baseline covers daily periodicity."""


class _StatsForecaster:
    """Common code for AutoARIMA/AutoETS: one fitted statsforecast model per series."""

    name = "stats"

    def __init__(self, config: StatsConfig | None = None) -> None:
        self.config = config or StatsConfig()
        self.models: dict[str, Any] = {}
        self.fit_tails: dict[str, FloatArray] = {}
        self.fallbacks = 0

    def _new_model(self) -> Any:
        raise NotImplementedError

    def fit(self, panel: Panel, horizon_steps: int) -> None:
        """Fit one model per series on the last ``fit_history_steps`` training points."""
        for s, sid in enumerate(panel.series_ids):
            self._fit_one(sid, panel.values[s, -self.config.fit_history_steps :])

    def _fit_one(self, sid: str, tail: FloatArray) -> None:
        self.fit_tails[sid] = tail
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # statsforecast's numerical warnings are noise
                self.models[sid] = self._new_model().fit(tail)
        except Exception:  # a degenerate series: fall back to naive-1 below
            self.fallbacks += 1

    def _forward(self, sid: str, context: FloatArray, horizon_steps: int) -> FloatArray:
        """(Q, H) quantiles at one origin: p10, p50 (= mean), p90."""
        model = self.models.get(sid)
        if model is not None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = model.forward(y=context, h=horizon_steps, level=[80])
                return np.stack([out["lo-80"], out["mean"], out["hi-80"]])
            except Exception:
                self.fallbacks += 1
        return np.repeat(np.full((1, horizon_steps), context[-1]), 3, axis=0)

    def predict(
        self, panel: Panel, horizon_steps: int, origins: IntArray | None = None
    ) -> Forecast:
        """Apply each series' fitted model to its context before every origin."""
        resolved = resolve_origins(panel, horizon_steps, origins)
        quantiles = np.zeros((panel.n_series, resolved.size, 3, horizon_steps))
        for s, sid in enumerate(panel.series_ids):
            if sid not in self.models and sid not in self.fit_tails:
                self._fit_one(
                    sid, panel.values[s, : resolved.min()][-self.config.fit_history_steps :]
                )
            for i, o in enumerate(resolved):
                context = panel.values[s, max(0, o - self.config.context_steps) : o]
                quantiles[s, i] = self._forward(sid, context, horizon_steps)
        quantiles = np.sort(quantiles, axis=2)
        return Forecast(point=quantiles[:, :, 1].copy(), quantiles=quantiles, origins=resolved)

    def to_state(self) -> ModelState:
        """Config plus the capped training tails; loading refits (deterministic, no pickle)."""
        arrays = {f"tail_{i}": tail for i, tail in enumerate(self.fit_tails.values())}
        config = {"stats": asdict(self.config), "series_ids": list(self.fit_tails)}
        return ModelState(self.name, config, arrays)

    @classmethod
    def from_state(cls, state: ModelState) -> _StatsForecaster:
        """Rebuild by refitting on the stored tails."""
        model = cls(StatsConfig(**state.config["stats"]))
        for i, sid in enumerate(state.config["series_ids"]):
            model._fit_one(sid, np.asarray(state.arrays[f"tail_{i}"], dtype=np.float64))
        return model


class AutoARIMABaseline(_StatsForecaster):
    """statsforecast AutoARIMA (stepwise order search, Hyndman & Khandakar 2008)."""

    name = "auto_arima"

    def _new_model(self) -> Any:
        from statsforecast.models import AutoARIMA

        return AutoARIMA(season_length=self.config.season_length)


class AutoETSBaseline(_StatsForecaster):
    """statsforecast AutoETS (exponential smoothing state space, Hyndman et al. 2002)."""

    name = "auto_ets"

    def _new_model(self) -> Any:
        from statsforecast.models import AutoETS

        return AutoETS(season_length=self.config.season_length)


__all__ = [
    "EWMA",
    "AutoARIMABaseline",
    "AutoETSBaseline",
    "SeasonalNaive",
    "StatsConfig",
    "daily_season_steps",
    "ewma_levels",
]
