"""Forecast-aware scoring: avoid nodes and regions forecast to run hot over the next minutes.

The plugin keeps a short history of the *perceived* CPU usage fraction of every node and of every
region (``sum usage / sum capacity`` over the region's nodes), one sample per ``step_s`` grid cell
(the last snapshot seen in a cell wins; missed cells are forward-filled). Each new snapshot time,
it forecasts ``horizon_s`` ahead and scores a candidate node ``i`` in region ``g``::

    peak_i = max over the horizon of the node's forecast, clipped to [0, 1]
    peak_g = the same for the region
    score  = 100 * (1 - ((1 - region_weight) * peak_i + region_weight * peak_g))

The default forecaster, ``trend``, is the EWMA level (:func:`aesp.forecast.baselines.ewma_levels`)
plus the least-squares slope of the last ``trend_window_steps`` samples (a linear trend,
``y_hat[T - 1 + h] = level + slope * h``); it costs ``O(S * T)`` per cycle. ``ewma`` and
``seasonal_naive`` use those baselines from :mod:`aesp.forecast`; ``model_path`` loads a trained
forecaster file (torch models are then imported by the forecast layer, never here).

AI is a plugin over the deterministic baseline: with fewer than ``min_history_steps`` samples, or
when the forecaster raises or returns non-finite values, every candidate gets the neutral
``100`` and the other plugins decide.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import ClassVar

import numpy as np

from aesp.core import CPU, ClusterSnapshot, Task
from aesp.core.resources import FloatArray, IntArray
from aesp.forecast.base import Forecaster
from aesp.forecast.baselines import EWMA, SeasonalNaive, ewma_levels
from aesp.forecast.panel import Panel
from aesp.placement.framework.interfaces import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.registry import register

MIN_HISTORY_STEPS = 5
"""Fewer samples than this and the plugin skips (five minutes at the default 60 s step)."""

TREND = "trend"
MODELS = (TREND, "ewma", "seasonal_naive")


def trend_forecast(
    values: FloatArray, horizon_steps: int, alpha: float = 0.5, window: int = 10
) -> FloatArray:
    """EWMA level plus linear trend: ``y_hat[T - 1 + h] = level[T - 1] + slope * h``.

    ``slope`` is the least-squares slope of the last ``window`` samples.

    Shapes:
        values: ``(S, T)`` with ``T >= 1`` -> ``(S, H)`` for ``h = 1..H``.
    """
    levels = np.stack([ewma_levels(row, alpha) for row in values])
    tail = values[:, -max(1, window) :]
    x = np.arange(tail.shape[1], dtype=np.float64)
    x -= x.mean()
    denom = float((x * x).sum())
    slope = (tail * x[None, :]).sum(axis=1) / denom if denom > 0 else np.zeros(len(values))
    h = np.arange(1, horizon_steps + 1, dtype=np.float64)
    out: FloatArray = levels[:, -1:] + slope[:, None] * h[None, :]
    return out


def forecast_peak(
    values: FloatArray,
    step_s: int,
    horizon_steps: int,
    model: str = TREND,
    forecaster: Forecaster | None = None,
    trend_window: int = 10,
) -> FloatArray:
    """The highest forecast value of each series over the next ``horizon_steps``.

    ``forecaster`` (e.g. a loaded model file) wins over ``model``; it is fitted on the history
    only when it has not been trained (the baselines), and asked for one origin at the end.

    Shapes:
        values: ``(S, T)`` -> ``(S,)``.
    """
    if forecaster is None and model == TREND:
        return np.asarray(
            trend_forecast(values, horizon_steps, window=trend_window).max(axis=1), np.float64
        )
    panel = Panel(
        series_ids=tuple(f"s{i}" for i in range(len(values))),
        values=values,
        observed=np.ones(values.shape, np.bool_),
        step_s=step_s,
        start_s=np.zeros(len(values), np.int64),
    )
    if forecaster is None:
        forecaster = EWMA() if model == "ewma" else SeasonalNaive()
        forecaster.fit(panel, horizon_steps)
    point = forecaster.predict(panel, horizon_steps).point
    return np.asarray(point[:, -1, :].max(axis=1), np.float64)


class UsageHistory:
    """Per-series samples on a fixed ``step_s`` grid, at most ``max_steps`` kept.

    Shapes: ``values`` is ``(S, T)``.
    """

    def __init__(self, step_s: float, max_steps: int) -> None:
        self.step_s, self.max_steps = step_s, max_steps
        self.values = np.zeros((0, 0))
        self.last_cell = -math.inf

    def add(self, time_s: float, sample: FloatArray) -> None:
        """Record ``sample`` (``(S,)``) at ``time_s``; restart on a new series count or time
        going backwards (a new run)."""
        cell = math.floor(time_s / self.step_s)
        if sample.shape[0] != self.values.shape[0] or cell < self.last_cell:
            self.values, self.last_cell = sample[:, None].copy(), cell
            return
        if cell == self.last_cell:
            self.values[:, -1] = sample
            return
        gap = int(min(cell - self.last_cell - 1, self.max_steps))
        fill = np.repeat(self.values[:, -1:], gap, axis=1)
        self.values = np.concatenate([self.values, fill, sample[:, None]], axis=1)
        self.values = self.values[:, -self.max_steps :]
        self.last_cell = cell

    @property
    def n_steps(self) -> int:
        return int(self.values.shape[1])


def region_codes(snapshot: ClusterSnapshot) -> IntArray:
    """``(N,)`` index of each node's region, regions numbered in order of first appearance."""
    sites = snapshot.table.topology.sites
    names = [sites[int(s)].region for s in snapshot.table.site]
    lookup = {r: i for i, r in enumerate(dict.fromkeys(names))}
    return np.array([lookup[r] for r in names], np.int64)


def cpu_fractions(snapshot: ClusterSnapshot, region: IntArray) -> FloatArray:
    """Node then region CPU usage fractions, ``(N + G,)``; 0 where there is no capacity."""
    usage, cap = snapshot.usage[:, CPU], snapshot.capacity[:, CPU]
    node = np.divide(usage, cap, out=np.zeros(len(cap)), where=cap > 0)
    n_regions = int(region.max()) + 1 if region.size else 0
    r_use = np.bincount(region, usage, minlength=n_regions)
    r_cap = np.bincount(region, cap, minlength=n_regions)
    reg = np.divide(r_use, r_cap, out=np.zeros(n_regions), where=r_cap > 0)
    return np.concatenate([node, reg])


def forecast_score(
    node_peak: FloatArray, region_peak: FloatArray, region_weight: float
) -> FloatArray:
    """``100 * (1 - ((1 - w) * clip(node_peak) + w * clip(region_peak)))``.

    Shapes: node_peak, region_peak ``(K,)`` -> ``(K,)``.
    """
    blend = (1.0 - region_weight) * np.clip(node_peak, 0, 1) + region_weight * np.clip(
        region_peak, 0, 1
    )
    return np.asarray(MAX_NODE_SCORE * (1.0 - blend), np.float64)


@register
class LoadForecast:
    """Penalise nodes and regions whose CPU usage is forecast to run hot (module doc)."""

    NAME: ClassVar[str] = "LoadForecast"

    def __init__(
        self,
        horizon_s: float = 900.0,
        step_s: float = 60.0,
        min_history_steps: int = MIN_HISTORY_STEPS,
        max_history_steps: int = 120,
        region_weight: float = 0.5,
        model: str = TREND,
        model_path: str | None = None,
    ) -> None:
        if model not in MODELS:
            raise ValueError(f"unknown model {model!r}; choose from {', '.join(MODELS)}")
        if not 0.0 <= region_weight <= 1.0:
            raise ValueError("region_weight must lie in [0, 1]")
        self.step_s, self.model, self.region_weight = step_s, model, region_weight
        self.horizon_steps = max(1, math.ceil(horizon_s / step_s))
        self.min_history_steps = max(1, min_history_steps)
        self.model_path = model_path
        self.history = UsageHistory(step_s, max(max_history_steps, self.min_history_steps))
        self._forecaster: Forecaster | None = None
        self._seen_time_s = math.nan
        self._region = np.zeros(0, np.int64)
        self._peak: FloatArray | None = None
        self.skips = 0
        """Cycles on which the plugin returned neutral scores (too little history, failure)."""

    def _load(self) -> Forecaster | None:
        if self.model_path is not None and self._forecaster is None:
            from aesp.forecast.registry import load_forecaster

            self._forecaster = load_forecaster(Path(self.model_path))
        return self._forecaster

    def _update(self, snapshot: ClusterSnapshot) -> None:
        """Record the snapshot and refresh the forecast once per snapshot time."""
        if snapshot.time_s == self._seen_time_s and self._region.size == len(snapshot):
            return
        self._seen_time_s = snapshot.time_s
        self._region = region_codes(snapshot)
        self.history.add(snapshot.time_s, cpu_fractions(snapshot, self._region))
        self._peak = None
        if self.history.n_steps < self.min_history_steps:
            self.skips += 1
            return
        try:
            peak = forecast_peak(
                self.history.values, int(self.step_s), self.horizon_steps, self.model, self._load()
            )
        except Exception:  # a failing forecaster must never fail the scheduler
            peak = np.full(self.history.values.shape[0], np.nan)
        if np.all(np.isfinite(peak)):
            self._peak = peak
        else:
            self.skips += 1

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        self._update(state.snapshot)
        if self._peak is None:
            return np.full(len(candidates), MAX_NODE_SCORE)
        n = len(state.snapshot)
        return forecast_score(
            self._peak[candidates], self._peak[n + self._region[candidates]], self.region_weight
        )
