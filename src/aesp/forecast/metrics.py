"""Forecast accuracy metrics, pooled over every valid (series, origin, lead) point.

All functions take ``y`` (actual), ``y_hat`` (forecast) and ``valid`` (which points count) of the
same shape and return ``nan`` when no point counts. Imputed targets are never valid.

- MAPE skips points with ``|y| < eps`` (``eps`` per series: :data:`MAPE_EPS_FRACTION` of the
  series' training 99th-percentile ``|y|``) because CPU series sit near 0 % for long stretches and
  the ratio explodes there.
- sMAPE is the 0-200 % form ``200 |y - y_hat| / (|y| + |y_hat|)``, skipping points where both are 0.
- MASE divides errors by the in-sample MAE of the naive-1 forecast on the training split
  (Hyndman & Koehler 2006), per series; series whose training part is constant are skipped.
- ``burst_mae`` is the MAE on *burst* points only: where the actual change from the last observed
  value, ``y[o + h] - y[o - 1]``, exceeds :data:`BURST_K` robust standard deviations of that
  series' ``h+1``-step changes on the training split (sigma = 1.4826 * MAD).
"""

from __future__ import annotations

import numpy as np

from aesp.forecast.panel import BoolArray, FloatArray

MAPE_EPS_FRACTION = 0.01
"""MAPE skips actuals below 1 % of the series' training 99th-percentile magnitude."""

BURST_K = 2.0
"""A burst is a change of more than 2 robust standard deviations."""

MAD_TO_SIGMA = 1.4826
"""Scales a median absolute deviation to a standard deviation under normality."""


def _mean(x: FloatArray, valid: BoolArray) -> float:
    return float(x[valid].mean()) if valid.any() else float("nan")


def mae(y: FloatArray, y_hat: FloatArray, valid: BoolArray) -> float:
    """Mean absolute error."""
    return _mean(np.abs(y - y_hat), valid)


def rmse(y: FloatArray, y_hat: FloatArray, valid: BoolArray) -> float:
    """Root mean squared error."""
    return float(np.sqrt(_mean((y - y_hat) ** 2, valid)))


def smape(y: FloatArray, y_hat: FloatArray, valid: BoolArray) -> float:
    """Symmetric MAPE in percent, 0-200."""
    denom = np.abs(y) + np.abs(y_hat)
    ok = valid & (denom > 0)
    return _mean(200.0 * np.abs(y - y_hat) / np.where(ok, denom, 1.0), ok)


def mape(y: FloatArray, y_hat: FloatArray, valid: BoolArray, eps: FloatArray) -> float:
    """MAPE in percent, skipping ``|y| < eps`` (``eps`` broadcasts against ``y``)."""
    ok = valid & (np.abs(y) >= eps)
    return _mean(100.0 * np.abs(y - y_hat) / np.where(ok, np.abs(y), 1.0), ok)


def mase(y: FloatArray, y_hat: FloatArray, valid: BoolArray, scale: FloatArray) -> float:
    """Mean absolute scaled error; ``scale`` broadcasts against ``y``, zero scales are skipped."""
    ok = valid & (scale > 0)
    return _mean(np.abs(y - y_hat) / np.where(ok, scale, 1.0), ok)


def burst_points(
    y: FloatArray, y_last: FloatArray, sigma: FloatArray, k: float = BURST_K
) -> BoolArray:
    """Points whose change from the last observed value exceeds ``k * sigma``.

    Shapes:
        y: (S, O, H); y_last: (S, O); sigma: (S, H) -> (S, O, H).
    """
    return np.abs(y - y_last[:, :, None]) > k * sigma[:, None, :]


def naive_scale(train: FloatArray, observed: BoolArray) -> FloatArray:
    """In-sample MAE of the naive-1 forecast per series, over pairs of observed points.

    Shapes:
        train, observed: (S, T) -> (S,).
    """
    both = observed[:, 1:] & observed[:, :-1]
    diffs = np.where(both, np.abs(np.diff(train, axis=1)), 0.0)
    scale: FloatArray = diffs.sum(axis=1) / np.maximum(both.sum(axis=1), 1)
    return scale


def mape_eps(train: FloatArray) -> FloatArray:
    """Per-series MAPE threshold (see module docstring). Shapes: (S, T) -> (S,)."""
    return np.maximum(MAPE_EPS_FRACTION * np.percentile(np.abs(train), 99, axis=1), 1e-12)


def change_sigma(train: FloatArray, horizon_steps: int) -> FloatArray:
    """Robust std of ``h``-step changes, ``h = 1..H``, per series.

    Shapes:
        train: (S, T) -> (S, H).
    """
    out = np.zeros((train.shape[0], horizon_steps))
    for h in range(1, horizon_steps + 1):
        changes = train[:, h:] - train[:, :-h]
        mad = np.median(np.abs(changes - np.median(changes, axis=1, keepdims=True)), axis=1)
        out[:, h - 1] = MAD_TO_SIGMA * mad
    return out
