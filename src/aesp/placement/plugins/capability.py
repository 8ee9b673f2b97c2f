"""Capability matching: prefer nodes where the task's class runs fastest."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from aesp.config.capability import load_capability
from aesp.core import NodeTable, Task
from aesp.core.capability import SpeedTable
from aesp.core.resources import FloatArray, IntArray
from aesp.placement.framework.interfaces import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.registry import register


def capability_score(speed: FloatArray, best: float) -> FloatArray:
    """``100 * speed / best``: the fastest node for the task anywhere in the cluster scores 100.

    Shapes: speed ``(K,)`` -> ``(K,)``.
    """
    if best <= 0:
        return np.zeros_like(speed)
    return np.clip(speed / best, 0.0, 1.0) * MAX_NODE_SCORE  # type: ignore[no-any-return]


@register
class Capability:
    """Scores by the task's speed on each node from the capability matrix.

    Args:
        matrix: path of a capability YAML; the shipped matrix when omitted.
    """

    NAME: ClassVar[str] = "Capability"

    def __init__(self, matrix: str | None = None) -> None:
        self.matrix = load_capability(matrix)
        self._table: NodeTable | None = None
        self._speeds: SpeedTable | None = None

    def speeds(self, table: NodeTable) -> SpeedTable:
        if self._table is not table:
            self._speeds, self._table = self.matrix.speed_table(table), table
        assert self._speeds is not None
        return self._speeds

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        speed = self.speeds(state.snapshot.table).for_task(task)
        return capability_score(speed[candidates], float(speed.max()))
