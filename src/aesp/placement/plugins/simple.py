"""Reference scores for simple packers: first fit and random."""

from __future__ import annotations

from typing import ClassVar

from aesp.core import Task
from aesp.core.resources import FloatArray, IntArray
from aesp.placement.framework.interfaces import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.registry import register


@register
class FirstFit:
    """``100 * (1 - index / N)``: the lowest-indexed feasible node wins."""

    NAME: ClassVar[str] = "FirstFit"

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        return MAX_NODE_SCORE * (1.0 - candidates / len(state))


@register
class RandomScore:
    """Uniform random scores from the cycle's seeded generator."""

    NAME: ClassVar[str] = "RandomScore"

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        return state.rng.uniform(0.0, MAX_NODE_SCORE, size=len(candidates))
