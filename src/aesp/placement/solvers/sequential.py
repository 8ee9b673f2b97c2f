"""The kube-style sequential solver: one task at a time, the highest weighted score wins.

Tasks are taken in queue order (priority, then arrival). For each, filters run over every node
(vectorised), then, as kube-scheduler does with ``percentageOfNodesToScore``, only the first
``numFeasibleNodesToFind`` feasible nodes from a rotating start index are scored. Ties break
uniformly at random with the cycle's seeded generator.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aesp.core import Binding, Code, Decision, Status, Task, gpu_fit
from aesp.core.resources import CPU, MEM, BoolArray, IntArray
from aesp.placement.framework.interfaces import CycleState
from aesp.placement.framework.reservation import Reservations, ReservationSettings
from aesp.placement.framework.runtime import Framework, NodeSampler


def queue_order(pending: Sequence[Task]) -> list[Task]:
    """kube's PrioritySort: higher priority first, then earlier arrival, then id."""
    return sorted(pending, key=lambda t: (-t.priority, t.arrival_s, t.id))


def could_fit_somewhere(state: CycleState, tasks: Sequence[Task]) -> BoolArray:
    """Per task, whether any node's free resources cover it at cycle start.

    Free capacity only shrinks within a cycle, so a task that fits nowhere now is skipped
    without running the filter chain. Shapes: -> ``(P,)``.
    """
    if not tasks:
        return np.zeros(0, np.bool_)
    free = state.free
    cpu = np.array([t.request.cpu_milli for t in tasks])
    mem = np.array([t.request.mem_mib for t in tasks])
    ok = (free[None, :, CPU] >= cpu[:, None] - 1e-9) & (free[None, :, MEM] >= mem[:, None] - 1e-9)
    gpu_ok: dict[tuple[int, int], BoolArray] = {}
    for i, t in enumerate(tasks):
        key = (t.request.gpu_count, t.request.gpu_milli)
        if key not in gpu_ok:
            gpu_ok[key] = gpu_fit(state.gpu_free_milli, t.request)
        ok[i] &= gpu_ok[key]
    return np.asarray(ok.any(axis=1), np.bool_)


class SequentialSolver:
    """Places tasks one by one; keeps kube's rotating start index between cycles."""

    def __init__(self, framework: Framework) -> None:
        self.framework = framework
        self.sampler = NodeSampler(framework.profile.percentage_of_nodes_to_score)
        held = framework.profile.reservation
        self.reservations = Reservations(framework, ReservationSettings(**held)) if held else None  # type: ignore[arg-type]

    @property
    def next_start_node_index(self) -> int:
        """Where the kube-style search for feasible nodes starts next."""
        return self.sampler.next_start_node_index

    @next_start_node_index.setter
    def next_start_node_index(self, value: int) -> None:
        self.sampler.next_start_node_index = value

    def candidates(self, mask: BoolArray) -> IntArray:
        """The feasible nodes to score, found from the rotating start index."""
        return self.sampler.candidates(mask)

    def solve(self, state: CycleState, pending: Sequence[Task]) -> Decision:
        fw = self.framework
        bindings: list[Binding] = []
        statuses: dict[int, Status] = {}
        tasks = queue_order(pending)
        if self.reservations is not None:
            self.reservations.update(state, tasks)
        hopeful = could_fit_somewhere(state, tasks)
        for task, hope in zip(tasks, hopeful, strict=True):
            status = fw.prefilter(state.snapshot, task)
            if not status.ok:
                statuses[task.id] = status
                continue
            if not hope:
                statuses[task.id] = Status(
                    Code.UNSCHEDULABLE, ("insufficient resources",), "NodeResourcesFit"
                )
                continue
            mask, culprit = fw.feasible(state, task)
            if culprit:
                statuses[task.id] = Status(Code.UNSCHEDULABLE, ("no feasible node",), culprit)
                continue
            cand = self.candidates(mask)
            scores = fw.score(state, task, cand)
            best = np.flatnonzero(scores >= scores.max() - 1e-9)
            node = int(
                cand[best[state.rng.integers(len(best))]] if len(best) > 1 else cand[best[0]]
            )
            bindings.append(Binding(task.id, node, state.assume(task, node)))
        return Decision(tuple(bindings), statuses, solver="sequential")
