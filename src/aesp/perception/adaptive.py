"""Adaptive reporting: an entropy-based change detector and the reporting policies that use it.

The agent collects a sample every tick (5 s by default) and asks its :class:`ReportingPolicy`
how long the interval between *reports* should be. :class:`Adaptive` reports every 30 s while the
node is steady and every 5 s while a change detector says its state is changing (load burst,
network jitter, just after a reconnect), with hysteresis so it does not flap.

Change score (the estimator)
----------------------------
For each metric ``m``, the last ``W`` deltas ``d_t = c(x_t) - c(x_{t-1})`` are taken in change
coordinates ``c`` (:func:`aesp.perception.schema.change_coordinates`: a step of 1.0 is one
``scale`` of the metric, e.g. 100 percentage points, 100 ms, 2 decades of bytes/s above 1 MB/s).
Each delta falls in a bin of width ``b`` centred on zero, ``k = round(d / b)``. One pseudo-count
is added to the zero bin (the steady-state prior), so a window whose deltas all sit in one
non-zero bin (a steady ramp) is not mistaken for a steady state. The Shannon entropy of the bin
frequencies, ``H_m = -sum_k p_k log2 p_k`` (Shannon 1948), is normalised by its maximum
``log2(W + 1)`` to ``[0, 1]``; the score is ``max_m H_m`` over metrics with at least two finite
deltas. A steady window scores 0; one step change of more than ``b/2`` scores
``H(1/(W+1))/log2(W+1)`` (0.21 for ``W = 6``); irregular bursts score up to 1.

Hysteresis: enter fast mode when the score reaches ``t_hi``; leave it only after the score stayed
below ``t_lo`` for ``calm_ticks`` consecutive ticks. A reconnect forces fast mode.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from aesp.core.resources import FloatArray
from aesp.perception.schema import MetricSample, change_coordinates

Mode = Literal["steady", "fast"]


def window_change_entropy(deltas: FloatArray, bin_width: float) -> float:
    """Change score of a window of normalised deltas: max over metrics of normalised entropy.

    Shapes:
        deltas: ``(W, M)`` in change coordinates, NaN where a metric was unreadable.
    Units:
        bin_width: change coordinates (0.1 = a tenth of the metric's scale).

    Returns:
        The score in ``[0, 1]``; 0 when no metric has two finite deltas.
    """
    if deltas.ndim != 2:
        raise ValueError(f"deltas must be (W, M), got shape {deltas.shape}")
    return max((_metric_entropy(col, bin_width) for col in deltas.T), default=0.0)


def _metric_entropy(deltas: FloatArray, bin_width: float) -> float:
    finite = deltas[np.isfinite(deltas)]
    if finite.size < 2:
        return 0.0
    bins = np.rint(finite / bin_width).astype(np.int64)
    _, counts = np.unique(np.append(bins, 0), return_counts=True)
    p = counts / counts.sum()
    return max(0.0, float(-(p * np.log2(p)).sum() / np.log2(finite.size + 1)))


@dataclass
class EntropyChangeDetector:
    """Streaming change score over the last ``window`` sample-to-sample deltas.

    See the module docstring for the estimator.
    """

    window: int = 6
    bin_width: float = 0.1
    _last: FloatArray | None = field(default=None, init=False, repr=False)
    _deltas: deque[FloatArray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.window < 2 or self.bin_width <= 0:
            raise ValueError("window must be >= 2 and bin_width positive")
        self._deltas = deque(maxlen=self.window)

    def update(self, values: FloatArray) -> float:
        """Add a sample and return the change score of the window ending at it.

        Shapes:
            values: ``(M,)`` raw metric values in :data:`aesp.perception.schema.METRIC_NAMES`
            order, NaN where unknown.
        """
        coords = change_coordinates(values)
        if self._last is not None:
            self._deltas.append(coords - self._last)
        self._last = coords
        if not self._deltas:
            return 0.0
        return window_change_entropy(np.stack(self._deltas), self.bin_width)


@runtime_checkable
class ReportingPolicy(Protocol):
    """Decides how often an agent reports. The agent calls ``observe`` once per tick."""

    @property
    def interval_s(self) -> float:
        """Current interval between reports, seconds."""
        ...

    def observe(self, now_s: float, sample: MetricSample) -> None:
        """Take in the sample collected at ``now_s``."""
        ...

    def on_reconnect(self, now_s: float) -> None:
        """The transport came back after a failure."""
        ...


@dataclass
class FixedInterval:
    """Report every ``interval_s`` seconds whatever happens (the baselines: 30 s and 5 s)."""

    interval_s: float = 30.0

    def __post_init__(self) -> None:
        if self.interval_s <= 0:
            raise ValueError("interval_s must be positive")

    def observe(self, now_s: float, sample: MetricSample) -> None:
        del now_s, sample

    def on_reconnect(self, now_s: float) -> None:
        del now_s


@dataclass
class Adaptive:
    """Entropy-triggered switch between a steady and a fast report interval, with hysteresis.

    Units: steady_s, fast_s seconds. Thresholds are change scores in ``[0, 1]``.
    """

    steady_s: float = 30.0
    fast_s: float = 5.0
    t_hi: float = 0.15
    """Enter fast mode when the change score reaches this (one step change scores 0.21)."""
    t_lo: float = 0.05
    """Calm means a score below this."""
    calm_ticks: int = 3
    """Consecutive calm ticks needed to go back to the steady interval."""
    detector: EntropyChangeDetector = field(default_factory=EntropyChangeDetector)
    mode: Mode = field(default="steady", init=False)
    last_score: float = field(default=0.0, init=False)
    switches: int = field(default=0, init=False)
    _calm: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.fast_s <= self.steady_s:
            raise ValueError("need 0 < fast_s <= steady_s")
        if not 0 <= self.t_lo <= self.t_hi or self.calm_ticks < 1:
            raise ValueError("need 0 <= t_lo <= t_hi and calm_ticks >= 1")

    @property
    def interval_s(self) -> float:
        return self.fast_s if self.mode == "fast" else self.steady_s

    def observe(self, now_s: float, sample: MetricSample) -> None:
        del now_s
        self.last_score = self.detector.update(sample.vector())
        self._step(self.last_score)

    def on_reconnect(self, now_s: float) -> None:
        del now_s
        self._step(1.0)

    def _step(self, score: float) -> None:
        if self.mode == "steady":
            if score >= self.t_hi:
                self._set("fast")
            return
        self._calm = self._calm + 1 if score < self.t_lo else 0
        if self._calm >= self.calm_ticks:
            self._set("steady")

    def _set(self, mode: Mode) -> None:
        self.mode, self._calm = mode, 0
        self.switches += 1
