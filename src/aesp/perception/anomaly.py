"""Streaming anomaly detectors: a robust z-score and an EWMA control chart.

Both judge a new value against a sliding window of the values *before* it, so an anomaly does
not mask itself, and both work elementwise on arrays of any shape (one detector can watch every
metric of a node at once). NaN inputs never alarm and never enter the window.

Robust z-score (Iglewicz and Hoaglin 1993, "How to Detect and Handle Outliers")::

    z_t = (x_t - median(w)) / s,   s = max(1.4826 * MAD(w), 1.2533 * MeanAD(w), min_scale)

over the previous ``window`` values ``w``; alarm when ``|z_t| >= threshold`` (3.5 in the paper).
``1.4826 * MAD`` estimates the standard deviation of normal data; when more than half the window
is one value (MAD = 0, common in CPU series) the mean absolute deviation from the median takes
over (scaled by sqrt(pi/2)), and ``min_scale`` keeps a perfectly flat window from turning the
smallest wiggle into an infinite z.

EWMA control chart (Roberts 1959; Lucas and Saccucci 1990)::

    e_t = lam * x_t + (1 - lam) * e_{t-1}
    alarm when |e_t - mu| >= L * sigma * sqrt(lam / (2 - lam))

with ``mu`` and ``sigma`` the robust centre and scale (as above) of the previous ``window`` raw
values, so the in-control level follows slow drift. ``lam = 0.2, L = 3`` are the textbook choice.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from aesp.core.resources import BoolArray, FloatArray

_MAD_TO_SIGMA = 1.4826
_MEANAD_TO_SIGMA = 1.2533


class AnomalyDetector(Protocol):
    """Judges each new observation against the recent past."""

    def update(self, x: FloatArray) -> BoolArray:
        """Add an observation; True where it is anomalous."""
        ...


def robust_centre_scale(window: FloatArray, min_scale: float) -> tuple[FloatArray, FloatArray]:
    """Median and robust scale along axis 0, ignoring NaN.

    Shapes:
        window: ``(W, ...)``; returns two arrays of shape ``(...)``. All-NaN columns give NaN.
    """
    with np.errstate(all="ignore"):
        centre = _nan_reduce(np.nanmedian, window)
        dev = np.abs(window - centre)
        mad = _nan_reduce(np.nanmedian, dev) * _MAD_TO_SIGMA
        mean_ad = _nan_reduce(np.nanmean, dev) * _MEANAD_TO_SIGMA
    scale = np.fmax(np.fmax(mad, mean_ad), min_scale)
    return centre, np.where(np.isnan(centre), np.nan, scale)


def _nan_reduce(fn: object, a: FloatArray) -> FloatArray:
    """Apply a nan-reduction along axis 0 without the all-NaN RuntimeWarning."""
    finite = np.isfinite(a).any(axis=0)
    filled = np.where(finite, a, 0.0)
    out = fn(filled, axis=0)  # type: ignore[operator]
    return np.asarray(np.where(finite, out, np.nan), np.float64)


@dataclass
class RobustZScore:
    """Streaming robust z-score over the previous ``window`` observations (see module doc)."""

    window: int = 60
    threshold: float = 3.5
    min_periods: int = 10
    min_scale: float = 1e-6
    last_z: FloatArray = field(default_factory=lambda: np.zeros(0), init=False, repr=False)
    _history: deque[FloatArray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not 2 <= self.min_periods <= self.window or self.threshold <= 0:
            raise ValueError("need 2 <= min_periods <= window and a positive threshold")
        self._history = deque(maxlen=self.window)

    def update(self, x: FloatArray) -> BoolArray:
        x = np.asarray(x, np.float64)
        self.last_z = np.full(x.shape, np.nan)
        if len(self._history) >= self.min_periods:
            centre, scale = robust_centre_scale(np.stack(self._history), self.min_scale)
            self.last_z = (x - centre) / scale
        self._history.append(x)
        return np.asarray(np.abs(np.nan_to_num(self.last_z)) >= self.threshold)


@dataclass
class EwmaChart:
    """Streaming EWMA control chart with a robust rolling baseline (see module doc)."""

    lam: float = 0.2
    limit_sigmas: float = 3.0
    window: int = 60
    min_periods: int = 10
    min_scale: float = 1e-6
    _ewma: FloatArray | None = field(default=None, init=False, repr=False)
    _history: deque[FloatArray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.lam <= 1 or self.limit_sigmas <= 0:
            raise ValueError("need 0 < lam <= 1 and positive limit_sigmas")
        if not 2 <= self.min_periods <= self.window:
            raise ValueError("need 2 <= min_periods <= window")
        self._history = deque(maxlen=self.window)

    def update(self, x: FloatArray) -> BoolArray:
        x = np.asarray(x, np.float64)
        prev = x if self._ewma is None else self._ewma
        self._ewma = np.where(
            np.isnan(x), prev, self.lam * x + (1 - self.lam) * np.nan_to_num(prev)
        )
        alarm = np.zeros(x.shape, np.bool_)
        if len(self._history) >= self.min_periods:
            mu, sigma = robust_centre_scale(np.stack(self._history), self.min_scale)
            width = self.limit_sigmas * sigma * np.sqrt(self.lam / (2 - self.lam))
            alarm = np.nan_to_num(np.abs(self._ewma - mu) - width, nan=-1.0) >= 0
        self._history.append(x)
        return np.asarray(alarm & ~np.isnan(x))


def robust_zscores(series: FloatArray, window: int, min_scale: float) -> FloatArray:
    """Robust z of each point against the ``window`` points before it; NaN for the first ones.

    The batch equivalent of :class:`RobustZScore` with ``min_periods == window``.

    Shapes:
        series: ``(T,)``; returns ``(T,)``.
    """
    z = np.full(series.shape, np.nan)
    if series.size <= window:
        return z
    past = sliding_window_view(series[:-1], window)  # row i = series[i : i + window]
    centre, scale = robust_centre_scale(past.T, min_scale)
    z[window:] = (series[window:] - centre) / scale
    return z


def ewma_alarms(
    series: FloatArray, window: int, min_scale: float, lam: float = 0.2, limit_sigmas: float = 3.0
) -> BoolArray:
    """Batch EWMA chart alarms, the equivalent of :class:`EwmaChart` with ``min_periods == window``.

    Shapes:
        series: ``(T,)`` without NaN; returns ``(T,)``.
    """
    ewma = np.empty_like(series)
    acc = series[0] if series.size else 0.0
    for t, x in enumerate(series):
        acc = lam * x + (1 - lam) * acc
        ewma[t] = acc
    alarm = np.zeros(series.shape, np.bool_)
    if series.size <= window:
        return alarm
    past = sliding_window_view(series[:-1], window)
    mu, sigma = robust_centre_scale(past.T, min_scale)
    width = limit_sigmas * sigma * np.sqrt(lam / (2 - lam))
    alarm[window:] = np.abs(ewma[window:] - mu) >= width
    return alarm
