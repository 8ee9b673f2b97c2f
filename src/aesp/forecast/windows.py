"""Sliding windows, per-series scaling and the chronological train/validation split that the
global (cross-series) models share. Numpy only; the torch code lives in ``forecast.models``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from aesp.forecast.panel import BoolArray, FloatArray, IntArray, Panel

SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True)
class SeriesScaler:
    """Per-series standardisation ``(y - loc) / scale`` fitted on observed training points.

    Shapes:
        loc, scale: (S,).
    """

    loc: FloatArray
    scale: FloatArray

    @classmethod
    def fit(cls, values: FloatArray, observed: BoolArray) -> SeriesScaler:
        """Mean and standard deviation of the observed points (scale 1 for constant series)."""
        weights = observed.astype(np.float64)
        count = np.maximum(weights.sum(axis=1), 1.0)
        loc = (values * weights).sum(axis=1) / count
        var = (((values - loc[:, None]) ** 2) * weights).sum(axis=1) / count
        scale = np.sqrt(var)
        return cls(loc=loc, scale=np.where(scale > 1e-9, scale, 1.0))

    def transform(self, values: FloatArray) -> FloatArray:
        """Scale (S, T) values."""
        return (values - self.loc[:, None]) / self.scale[:, None]

    def inverse(self, scaled: FloatArray) -> FloatArray:
        """Undo :meth:`transform` for arrays whose first axis is the series (S, ...)."""
        shape = (-1,) + (1,) * (scaled.ndim - 1)
        return scaled * self.scale.reshape(shape) + self.loc.reshape(shape)


def window_index(origins: IntArray, context_steps: int) -> IntArray:
    """Column indices of the ``context_steps`` points before each origin, clipped at 0
    (short histories repeat their first point).

    Shapes:
        origins: (N,) -> (N, L).
    """
    idx = origins[:, None] - context_steps + np.arange(context_steps)[None, :]
    clipped: IntArray = np.maximum(idx, 0)
    return clipped


def context_features(
    scaled: FloatArray, panel: Panel, series: IntArray, origins: IntArray, context_steps: int
) -> FloatArray:
    """Model inputs: scaled value and time of day (sin, cos) over each context window.

    Shapes:
        scaled: (S, T); series, origins: (N,) -> (N, L, 3).
    """
    idx = window_index(origins, context_steps)
    times_s = panel.start_s[series][:, None] + panel.step_s * idx
    angle = 2.0 * np.pi * (times_s % SECONDS_PER_DAY) / SECONDS_PER_DAY
    return np.stack([scaled[series[:, None], idx], np.sin(angle), np.cos(angle)], axis=-1)


def targets(
    scaled: FloatArray, observed: BoolArray, series: IntArray, origins: IntArray, horizon: int
) -> tuple[FloatArray, BoolArray]:
    """The ``horizon`` values from each origin and whether each was observed.

    Shapes:
        series, origins: (N,) -> (N, H), (N, H).
    """
    idx = origins[:, None] + np.arange(horizon)[None, :]
    return scaled[series[:, None], idx], observed[series[:, None], idx]


def split_origins(
    n_steps: int, context_steps: int, horizon_steps: int, val_fraction: float
) -> tuple[IntArray, IntArray]:
    """Chronological split of forecast origins: training targets end before the validation part.

    The last ``val_fraction`` of the steps is validation; a training origin ``o`` needs
    ``o + H <= t_val`` so no training target falls in the validation part.
    """
    t_val = int(n_steps * (1.0 - val_fraction))
    first = min(context_steps, max(1, t_val // 4))
    train = np.arange(first, t_val - horizon_steps + 1, dtype=np.int64)
    val = np.arange(t_val, n_steps - horizon_steps + 1, dtype=np.int64)
    if train.size == 0 or val.size == 0:
        raise ValueError(
            f"series of {n_steps} steps are too short for context {context_steps} "
            f"and horizon {horizon_steps}"
        )
    return train, val
