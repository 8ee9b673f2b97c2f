"""Reservations: a starvation guard for tasks that have waited too long.

Large tasks (an 8-GPU training job) can wait forever while small ones keep taking the capacity
freed on every node. Once a task has been pending for ``after_s`` and still fits nowhere, the
solver holds one node for it: the node that passes all of the task's filters when empty and is
closest to fitting it now (the largest fraction of each requested resource already free). Other
tasks are filtered off a held node until its task is placed or leaves; at most ``max_held``
nodes are held at once. A held node drains as its tasks finish, so the task is placed within
one task lifetime instead of waiting for a lucky moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from aesp.core import CPU, MEM, MILLI_PER_GPU, Task
from aesp.core.resources import FloatArray
from aesp.placement.framework.interfaces import CycleState
from aesp.placement.framework.runtime import Framework


@dataclass(frozen=True)
class ReservationSettings:
    """When and how much to hold (a profile's ``reservation`` block)."""

    after_s: float = 900.0
    """Pending time after which a task that fits nowhere gets a node held for it."""
    max_held: int = 4
    """Most nodes held at once."""


def closeness(state: CycleState, task: Task) -> FloatArray:
    """Per node, the smallest fraction of a requested resource that is free now (1 = fits).

    GPUs count whole free GPUs for multi-GPU requests. Shapes: -> ``(N,)``.
    """
    req = task.request
    free = state.free
    parts = []
    for dim, amount in ((CPU, req.cpu_milli), (MEM, req.mem_mib)):
        if amount > 0:
            parts.append(np.clip(free[:, dim] / amount, 0.0, 1.0))
    if req.gpu_count:
        usable = (state.gpu_free_milli >= req.gpu_milli - 1e-9).sum(axis=1)
        parts.append(np.clip(usable / req.gpu_count, 0.0, 1.0))
    if not parts:
        return np.ones(len(state))
    return np.minimum.reduce(parts)  # type: ignore[no-any-return]


class Reservations:
    """Nodes held for starving tasks, kept across cycles by the solver."""

    def __init__(self, framework: Framework, settings: ReservationSettings) -> None:
        self.framework, self.settings = framework, settings
        self.held: dict[int, int] = {}
        """Task id -> node index."""

    def update(self, state: CycleState, pending: Sequence[Task]) -> None:
        """Release holds of tasks no longer pending, add holds for starving ones, apply them."""
        ids = {t.id for t in pending}
        up = state.snapshot.up
        self.held = {t: n for t, n in self.held.items() if t in ids and up[n]}
        now = state.snapshot.time_s
        starving = sorted(
            (t for t in pending if t.id not in self.held and now - t.arrival_s >= self.settings.after_s),
            key=lambda t: (-t.priority, t.arrival_s, t.id),
        )
        state.reserved = {}
        for task in starving:
            if len(self.held) >= self.settings.max_held:
                break
            node = self._choose(state, task)
            if node is not None:
                self.held[task.id] = node
        state.reserved = {n: t for t, n in self.held.items()}

    def _choose(self, state: CycleState, task: Task) -> int | None:
        """The node to hold for ``task``, or None if it fits somewhere now or nowhere ever."""
        now_mask, _ = self.framework.feasible(state, task)
        if now_mask.any():
            return None
        empty = replace(
            state.snapshot,
            allocated=np.zeros_like(state.snapshot.allocated),
            usage=np.zeros_like(state.snapshot.usage),
            gpu_free_milli=np.where(state.snapshot.table.gpu_present, float(MILLI_PER_GPU), 0.0),
        )
        could, _ = self.framework.feasible(CycleState(empty, state.rng), task)
        could[list(self.held.values())] = False
        if not could.any():
            return None
        score = np.where(could, closeness(state, task), -1.0)
        return int(np.argmax(score))


__all__ = ["ReservationSettings", "Reservations", "closeness"]
