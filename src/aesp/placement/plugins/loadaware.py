"""Koordinator-style load-aware scheduling on measured usage.

Filter: drop nodes whose measured usage exceeds a threshold (65 % CPU, 95 % memory by default);
nodes whose metrics are older than ``metric_expiration_s`` are not filtered, as Koordinator skips
stale metrics rather than failing. Score: least *estimated* usage, where the estimate is the
measured usage plus, for tasks bound since the last report and for the incoming task, a fixed
fraction of their request (85 % CPU, 70 % memory).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from aesp.core import RESOURCE_NAMES, Task
from aesp.core.resources import BoolArray, FloatArray, IntArray
from aesp.placement.framework.interfaces import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.registry import register

DEFAULT_THRESHOLDS_PCT: Mapping[str, float] = {"cpu_milli": 65.0, "mem_mib": 95.0}
DEFAULT_ESTIMATE_PCT: Mapping[str, float] = {"cpu_milli": 85.0, "mem_mib": 70.0}
DEFAULT_WEIGHTS: Mapping[str, float] = {"cpu_milli": 1.0, "mem_mib": 1.0}


def _vector(values: Mapping[str, float], fill: float) -> FloatArray:
    unknown = set(values) - set(RESOURCE_NAMES)
    if unknown:
        raise ValueError(f"unknown resources {sorted(unknown)}; known: {RESOURCE_NAMES}")
    return np.array([float(values.get(r, fill)) for r in RESOURCE_NAMES])


def over_threshold(usage: FloatArray, capacity: FloatArray, threshold_pct: FloatArray) -> BoolArray:
    """Nodes where some resource's usage is above its threshold (NaN threshold = not checked).

    Shapes: usage, capacity ``(N, R)``; threshold_pct ``(R,)`` -> ``(N,)``.
    """
    pct = np.divide(usage, capacity, out=np.zeros_like(usage), where=capacity > 0) * 100.0
    checked = ~np.isnan(threshold_pct)
    return np.asarray((pct[:, checked] > threshold_pct[checked]).any(axis=1), np.bool_)


def least_used(capacity: FloatArray, estimated: FloatArray, weights: FloatArray) -> FloatArray:
    """``sum_r w_r * max(cap_r - est_r, 0) * 100 / cap_r / sum_r w_r``.

    Shapes: capacity, estimated ``(K, R)``; weights ``(R,)`` -> ``(K,)``.
    """
    free = np.divide(
        capacity - estimated, capacity, out=np.zeros_like(capacity), where=capacity > 0
    )
    w = np.where(capacity > 0, weights[None, :], 0.0)
    total = w.sum(axis=1)
    scored = (np.clip(free, 0, 1) * MAX_NODE_SCORE * w).sum(axis=1)
    out: FloatArray = np.divide(scored, total, out=np.zeros(len(total)), where=total > 0)
    return out


@register
class LoadAwareFilter:
    """Skip nodes whose fresh measured usage is above the thresholds."""

    NAME: ClassVar[str] = "LoadAwareFilter"

    def __init__(
        self,
        thresholds_pct: Mapping[str, float] = DEFAULT_THRESHOLDS_PCT,
        metric_expiration_s: float = 180.0,
    ) -> None:
        self.thresholds = _vector(thresholds_pct, np.nan)
        self.metric_expiration_s = metric_expiration_s

    def filter(self, state: CycleState, task: Task) -> BoolArray:
        snap = state.snapshot
        fresh = snap.staleness_s <= self.metric_expiration_s
        return ~(fresh & over_threshold(snap.usage, snap.capacity, self.thresholds))


@register
class LoadAware:
    """Prefer nodes with the least estimated usage after placement."""

    NAME: ClassVar[str] = "LoadAware"

    def __init__(
        self,
        estimate_pct: Mapping[str, float] = DEFAULT_ESTIMATE_PCT,
        weights: Mapping[str, float] = DEFAULT_WEIGHTS,
    ) -> None:
        self.estimate = _vector(estimate_pct, 100.0) / 100.0
        self.weights = _vector(weights, 0.0)

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        extra = (state.assumed[candidates] + task.request.vector()[None, :]) * self.estimate
        estimated = state.snapshot.usage[candidates] + extra
        return least_used(state.capacity[candidates], estimated, self.weights)
