"""Allocation-based scores: kube's LeastAllocated, MostAllocated, BalancedAllocation, and best fit.

All work on requests (what is allocated), not on measured usage; see ``loadaware`` for that.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from aesp.core import RESOURCE_NAMES, Task
from aesp.core.resources import FloatArray, IntArray
from aesp.placement.framework.interfaces import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.registry import register

KUBE_DEFAULT_RESOURCES: Mapping[str, float] = {"cpu_milli": 1.0, "mem_mib": 1.0}


def _weights(resources: Mapping[str, float]) -> FloatArray:
    unknown = set(resources) - set(RESOURCE_NAMES)
    if unknown:
        raise ValueError(f"unknown resources {sorted(unknown)}; known: {RESOURCE_NAMES}")
    return np.array([float(resources.get(r, 0.0)) for r in RESOURCE_NAMES])


def _weighted_mean(
    per_resource: FloatArray, weights: FloatArray, capacity: FloatArray
) -> FloatArray:
    """Mean over resources, skipping those a node lacks (capacity 0), as kube does."""
    w = np.where(capacity > 0, weights[None, :], 0.0)
    total = w.sum(axis=1)
    out: FloatArray = np.divide(
        (per_resource * w).sum(axis=1), total, out=np.zeros(len(w)), where=total > 0
    )
    return out


def least_allocated(capacity: FloatArray, requested: FloatArray, weights: FloatArray) -> FloatArray:
    """kube LeastAllocated: ``sum_r w_r * (cap_r - req_r) * 100 / cap_r / sum_r w_r``.

    ``requested`` already includes the incoming task; a resource requested beyond capacity
    scores 0.

    Shapes: capacity, requested ``(K, R)``; weights ``(R,)`` -> ``(K,)``.
    """
    free_frac = np.divide(
        capacity - requested, capacity, out=np.zeros_like(capacity), where=capacity > 0
    )
    return _weighted_mean(np.clip(free_frac, 0, 1) * MAX_NODE_SCORE, weights, capacity)


def most_allocated(capacity: FloatArray, requested: FloatArray, weights: FloatArray) -> FloatArray:
    """kube MostAllocated: ``sum_r w_r * req_r * 100 / cap_r / sum_r w_r`` (0 beyond capacity).

    Shapes: capacity, requested ``(K, R)``; weights ``(R,)`` -> ``(K,)``.
    """
    used = np.divide(requested, capacity, out=np.zeros_like(capacity), where=capacity > 0)
    used = np.where(used > 1, 0.0, used)
    return _weighted_mean(used * MAX_NODE_SCORE, weights, capacity)


def balanced_allocation(
    capacity: FloatArray, requested: FloatArray, mask: FloatArray
) -> FloatArray:
    """kube BalancedAllocation: ``(1 - std_r(min(req_r / cap_r, 1))) * 100``.

    The population standard deviation runs over the resources in ``mask`` that the node has.

    Shapes: capacity, requested ``(K, R)``; mask ``(R,)`` of 0/1 -> ``(K,)``.
    """
    frac = np.minimum(
        np.divide(requested, capacity, out=np.zeros_like(capacity), where=capacity > 0), 1.0
    )
    use = (capacity > 0) & (mask[None, :] > 0)
    n = use.sum(axis=1)
    mean = np.divide((frac * use).sum(axis=1), n, out=np.zeros(len(n)), where=n > 0)
    var = np.divide(
        (((frac - mean[:, None]) * use) ** 2).sum(axis=1), n, out=np.zeros(len(n)), where=n > 0
    )
    return (1.0 - np.sqrt(var)) * MAX_NODE_SCORE  # type: ignore[no-any-return]


def best_fit(capacity: FloatArray, requested: FloatArray, demand: FloatArray) -> FloatArray:
    """Best fit: ``100 * (1 - mean_r (cap_r - req_r) / cap_r)`` over the resources the task asks for.

    The tightest node (least left over after placement) wins; resources the task does not
    request are ignored so that CPU tasks do not chase GPU nodes.

    Shapes: capacity, requested ``(K, R)``; demand ``(R,)`` -> ``(K,)``.
    """
    left = np.divide(capacity - requested, capacity, out=np.ones_like(capacity), where=capacity > 0)
    asked = (demand > 0).astype(np.float64)
    if asked.sum() == 0:
        asked = np.ones_like(demand)
    mean_left = (np.clip(left, 0, 1) * asked).sum(axis=1) / asked.sum()
    return (1.0 - mean_left) * MAX_NODE_SCORE  # type: ignore[no-any-return]


def _with_task(
    state: CycleState, task: Task, candidates: IntArray
) -> tuple[FloatArray, FloatArray]:
    cap = state.capacity[candidates]
    return cap, state.allocated[candidates] + task.request.vector()[None, :]


@register
class LeastAllocated:
    """Spread: prefer nodes with the most free requested capacity."""

    NAME: ClassVar[str] = "LeastAllocated"

    def __init__(self, resources: Mapping[str, float] = KUBE_DEFAULT_RESOURCES) -> None:
        self.weights = _weights(resources)

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        return least_allocated(*_with_task(state, task, candidates), self.weights)


@register
class MostAllocated:
    """Pack: prefer nodes with the most requested capacity already in use."""

    NAME: ClassVar[str] = "MostAllocated"

    def __init__(self, resources: Mapping[str, float] = KUBE_DEFAULT_RESOURCES) -> None:
        self.weights = _weights(resources)

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        return most_allocated(*_with_task(state, task, candidates), self.weights)


@register
class BalancedAllocation:
    """Prefer nodes whose resources stay evenly used after placement."""

    NAME: ClassVar[str] = "BalancedAllocation"

    def __init__(self, resources: Mapping[str, float] = KUBE_DEFAULT_RESOURCES) -> None:
        self.mask = (_weights(resources) > 0).astype(np.float64)

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        return balanced_allocation(*_with_task(state, task, candidates), self.mask)


@register
class BestFit:
    """Prefer the node the task fills most tightly, over the resources it requests."""

    NAME: ClassVar[str] = "BestFit"

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        return best_fit(*_with_task(state, task, candidates), task.request.vector())
