"""Extension points of the scheduling framework and the per-cycle working state.

Plugins follow the kube-scheduler framework: a filter says which nodes can take a task, a score
ranks the remaining candidates in ``[0, 100]``, a prefilter can declare a task unresolvable
before any node is looked at. Each plugin is a thin adapter over a pure, vectorised function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from aesp.core import ClusterSnapshot, Status, Task, pick_gpus
from aesp.core.resources import BoolArray, FloatArray, IntArray

MAX_NODE_SCORE = 100.0
"""Scores live in ``[0, MAX_NODE_SCORE]``; the extender maps them to 0-10 in one place."""


@dataclass
class CycleState:
    """A scheduling cycle's working copy of the cluster (kube-scheduler's "assume" cache).

    Bindings made earlier in the same cycle are applied here so later tasks see them; the
    snapshot itself stays immutable.

    Shapes:
        allocated, assumed: ``(N, R)``; gpu_free_milli: ``(N, G)``.
    """

    snapshot: ClusterSnapshot
    rng: np.random.Generator
    allocated: FloatArray = field(init=False)
    gpu_free_milli: FloatArray = field(init=False)
    assumed: FloatArray = field(init=False)
    """Requests bound during this cycle, not yet visible in measured usage."""
    reserved: dict[int, int] = field(default_factory=dict)
    """Node index -> id of the task the node is held for (see ``reservation``)."""

    def __post_init__(self) -> None:
        self._free = self.snapshot.capacity - self.snapshot.allocated
        self.allocated = self.snapshot.allocated.copy()
        self.gpu_free_milli = self.snapshot.gpu_free_milli.copy()
        self.assumed = np.zeros_like(self.allocated)

    @property
    def capacity(self) -> FloatArray:
        return self.snapshot.capacity

    @property
    def free(self) -> FloatArray:
        """``(N, R)`` capacity minus allocation, kept up to date by :meth:`assume`."""
        return self._free

    def __len__(self) -> int:
        return len(self.snapshot)

    def held_for_others(self, task: Task) -> BoolArray:
        """``(N,)`` True on nodes held for a task other than ``task``."""
        mask = np.zeros(len(self), np.bool_)
        for node, owner in self.reserved.items():
            mask[node] = owner != task.id
        return mask

    def assume(self, task: Task, node: int) -> tuple[int, ...]:
        """Bind ``task`` to ``node`` in the working state; returns the GPUs it takes."""
        gpus = pick_gpus(self.gpu_free_milli[node], task.request)
        vec = task.request.vector()
        self.allocated[node] += vec
        self._free[node] -= vec
        self.assumed[node] += vec
        for g in gpus:
            self.gpu_free_milli[node, g] -= task.request.gpu_milli
        return gpus


@runtime_checkable
class PreFilterPlugin(Protocol):
    """Rejects a task that no node could ever take (returns a non-success Status)."""

    NAME: ClassVar[str]

    def prefilter(self, snapshot: ClusterSnapshot, task: Task) -> Status: ...


@runtime_checkable
class FilterPlugin(Protocol):
    """Which nodes can take the task now. Shapes: -> ``(N,)`` bool."""

    NAME: ClassVar[str]

    def filter(self, state: CycleState, task: Task) -> BoolArray: ...


@runtime_checkable
class ScorePlugin(Protocol):
    """Ranks candidate nodes. Shapes: candidates ``(K,)`` node indices -> ``(K,)`` in [0, 100]."""

    NAME: ClassVar[str]

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray: ...
