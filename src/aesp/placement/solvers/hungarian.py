"""Batch assignment with the Hungarian algorithm (``scipy.optimize.linear_sum_assignment``).

Formulation (one scheduling cycle):

1. Take up to ``max_batch`` pending tasks in queue order; the rest WAIT for the next cycle.
   Tasks failing a prefilter are UNRESOLVABLE; tasks that fit nowhere are UNSCHEDULABLE.
2. Each round, for every remaining task run the profile's filters on the current working state,
   sample feasible nodes as kube-scheduler does (``percentageOfNodesToScore``, from a rotating
   start index), score them with the same weighted plugins the sequential solver uses, and keep
   the ``top_k`` best (sampling and pruning keep the work and the matrix small on large
   clusters).
3. Slot expansion: candidate node ``j`` becomes ``s_j`` columns, ``s_j`` = the number of
   tasks that list it, capped by ``max_slots_per_node`` and by how many copies of the *largest*
   of those requests its free resources hold (CPU and memory by the largest request, GPUs by
   whole units of the largest per-GPU share), so that any ``s_j`` of them fit together; at
   least one slot when the node is a candidate at all. The cost of task ``i`` in slot ``k`` of node ``j`` is
   ``-(score_ij + bonus_i) + k * slot_penalty``, where ``bonus_i = B * (1 + priority_i) +
   age_i`` with ``B`` larger than any weighted score, so the solver first maximises the number
   of tasks placed, then prefers higher priority, then (through ``age_i``, up to
   ``max_age_bonus`` points for tasks that have waited) older tasks, then the total score.
   Non-candidate pairs cost ``BIG`` and are discarded after solving.
4. Assignments are applied in order of their cost, each checked against the node's free
   resources at that moment (slots are optimistic); a task whose slot no longer fits goes to the
   next round. Rounds repeat until a round places nothing. A node is never over-committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from aesp.core import Binding, Code, Decision, Request, Status, Task, resource_fit
from aesp.core.resources import FloatArray, IntArray
from aesp.placement.framework.interfaces import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.reservation import Reservations, ReservationSettings
from aesp.placement.framework.runtime import Framework, NodeSampler
from aesp.placement.solvers.sequential import could_fit_somewhere, queue_order

BIG = 1e12


@dataclass(frozen=True)
class HungarianSettings:
    """Solver settings (a profile's ``solver_args``)."""

    max_batch: int = 256
    """Most tasks decided together in one cycle; the rest wait."""
    top_k: int = 16
    """Candidate nodes kept per task."""
    max_slots_per_node: int = 8
    slot_penalty: float = 1e-3
    max_age_bonus: float = 10.0
    """Score points granted to a task that has waited ``age_scale_s`` or longer."""
    age_scale_s: float = 600.0
    max_rounds: int = 64

    def __post_init__(self) -> None:
        if (
            self.max_batch < 1
            or self.top_k < 1
            or self.max_slots_per_node < 1
            or self.max_rounds < 1
        ):
            raise ValueError("max_batch, top_k, max_slots_per_node and max_rounds must be >= 1")


@dataclass
class _Row:
    task: Task
    nodes: IntArray
    scores: FloatArray


def guaranteed_slots_all(
    free: FloatArray,
    gpu_free: FloatArray,
    listed: IntArray,
    owner: IntArray,
    requests: Sequence[Request],
) -> tuple[IntArray, IntArray]:
    """How many of the tasks listing each node, whichever they are, its free resources surely hold.

    CPU and memory: copies of the largest listed request. GPUs: units of the largest listed
    per-GPU share, counted per GPU, divided by the largest listed GPU count. ``listed[i]`` is a
    candidate node of task ``owner[i]``. Returns the distinct listed nodes and their slot counts:
    at most the number of tasks listing the node, at least one.

    Shapes: free ``(N, R)``, gpu_free ``(N, G)``, listed and owner ``(L,)``.
    """
    cpu = np.array([r.cpu_milli for r in requests])[owner]
    mem = np.array([r.mem_mib for r in requests])[owner]
    share = np.array([r.gpu_milli for r in requests], np.float64)[owner]
    count = np.array([r.gpu_count for r in requests])[owner]
    nodes, inverse, listers = np.unique(listed, return_inverse=True, return_counts=True)
    m = len(nodes)
    max_cpu, max_mem, max_share, max_count = np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m)
    np.maximum.at(max_cpu, inverse, cpu)
    np.maximum.at(max_mem, inverse, mem)
    np.maximum.at(max_share, inverse, share)
    np.maximum.at(max_count, inverse, count)
    f = free[nodes]
    room = np.full(m, np.inf)
    for dim, need in ((0, max_cpu), (1, max_mem)):
        room = np.minimum(
            room, np.floor_divide(f[:, dim], need, out=np.full(m, np.inf), where=need > 0)
        )
    gpu = max_count > 0
    if gpu.any():
        units = np.floor(gpu_free[nodes[gpu]] / max_share[gpu, None] + 1e-9).sum(axis=1)
        room[gpu] = np.minimum(room[gpu], units // max_count[gpu])
    slots = np.minimum(listers, np.maximum(1, np.minimum(room, 1e6))).astype(np.int64)
    return nodes.astype(np.int64), slots


class HungarianSolver:
    """Optimal batch assignment of a cycle's pending tasks."""

    def __init__(self, framework: Framework, settings: HungarianSettings | None = None) -> None:
        self.framework = framework
        self.settings = settings or HungarianSettings(**framework.profile.solver_args)
        self.sampler = NodeSampler(framework.profile.percentage_of_nodes_to_score)
        self.base_bonus = MAX_NODE_SCORE * float(framework.weights.sum()) + 1.0
        held = framework.profile.reservation
        self.reservations = Reservations(framework, ReservationSettings(**held)) if held else None  # type: ignore[arg-type]

    def solve(self, state: CycleState, pending: Sequence[Task]) -> Decision:
        cfg = self.settings
        ordered = queue_order(pending)
        if self.reservations is not None:
            self.reservations.update(state, ordered)
        batch = ordered[: cfg.max_batch]
        statuses: dict[int, Status] = {
            t.id: Status(Code.WAIT, ("beyond the cycle's batch",), "hungarian")
            for t in ordered[cfg.max_batch :]
        }
        active = self._admit(state, batch, statuses)
        bindings: list[Binding] = []
        rounds = 0
        while active and rounds < cfg.max_rounds:
            rounds += 1
            rows = self._candidates(state, active, statuses)
            placed = self._round(state, rows, bindings)
            if not placed:
                break
            active = [r.task for r in rows if r.task.id not in placed]
        for task in active:
            statuses.setdefault(task.id, Status(Code.UNSCHEDULABLE, ("no slot left",), "hungarian"))
        counters = {"rounds": float(rounds), "held_node_cycles": float(len(state.reserved))}
        return Decision(tuple(bindings), statuses, solver="hungarian", counters=counters)

    def _admit(
        self, state: CycleState, batch: list[Task], statuses: dict[int, Status]
    ) -> list[Task]:
        """Tasks worth solving for: not unresolvable and fitting somewhere at cycle start."""
        admitted = []
        for task in batch:
            status = self.framework.prefilter(state.snapshot, task)
            if not status.ok:
                statuses[task.id] = status
            else:
                admitted.append(task)
        hopeful = could_fit_somewhere(state, admitted)
        for task, ok in zip(admitted, hopeful, strict=True):
            if not ok:
                statuses[task.id] = Status(
                    Code.UNSCHEDULABLE, ("insufficient resources",), "NodeResourcesFit"
                )
        return [t for t, ok in zip(admitted, hopeful, strict=True) if ok]

    def _candidates(
        self, state: CycleState, tasks: list[Task], statuses: dict[int, Status]
    ) -> list[_Row]:
        """Top-k scored feasible nodes per task; tasks with none get an UNSCHEDULABLE status."""
        rows = []
        for task in tasks:
            mask, culprit = self.framework.feasible(state, task)
            nodes = self.sampler.candidates(mask)
            if not nodes.size:
                statuses[task.id] = Status(Code.UNSCHEDULABLE, ("no feasible node",), culprit)
                continue
            scores = self.framework.score(state, task, nodes)
            if nodes.size > self.settings.top_k:
                keep = np.argpartition(-scores, self.settings.top_k - 1)[: self.settings.top_k]
                nodes, scores = nodes[keep], scores[keep]
            statuses.pop(task.id, None)
            rows.append(_Row(task, nodes, scores))
        return rows

    def _bonus(self, state: CycleState, task: Task) -> float:
        cfg = self.settings
        age = min(max(state.snapshot.time_s - task.arrival_s, 0.0) / cfg.age_scale_s, 1.0)
        return self.base_bonus * (1 + task.priority) + cfg.max_age_bonus * age

    def _slots(self, state: CycleState, rows: list[_Row]) -> tuple[IntArray, IntArray]:
        """Columns as (node, slot index) pairs; see :func:`guaranteed_slots_all`."""
        listed = np.concatenate([row.nodes for row in rows])
        owner = np.repeat(np.arange(len(rows)), [len(row.nodes) for row in rows])
        reqs = [row.task.request for row in rows]
        nodes, counts = guaranteed_slots_all(state.free, state.gpu_free_milli, listed, owner, reqs)
        counts = np.minimum(counts, self.settings.max_slots_per_node)
        col_node = np.repeat(nodes, counts)
        starts = np.cumsum(counts) - counts
        col_slot = np.arange(len(col_node)) - np.repeat(starts, counts)
        return col_node.astype(np.int64), col_slot.astype(np.int64)

    def _round(self, state: CycleState, rows: list[_Row], bindings: list[Binding]) -> set[int]:
        """Solve one assignment problem and apply what still fits; returns placed task ids."""
        if not rows:
            return set()
        col_node, col_slot = self._slots(state, rows)
        cost = np.full((len(rows), len(col_node)), BIG)
        for i, row in enumerate(rows):
            value = dict(zip(row.nodes.tolist(), row.scores.tolist(), strict=True))
            cols = np.flatnonzero(np.isin(col_node, row.nodes))
            score = np.array([value[int(col_node[c])] for c in cols])
            cost[i, cols] = (
                -(score + self._bonus(state, row.task))
                + self.settings.slot_penalty * col_slot[cols]
            )
        r, c = linear_sum_assignment(cost)
        picked = sorted(
            (cost[i, j], i, j) for i, j in zip(r, c, strict=True) if cost[i, j] < BIG / 2
        )
        placed: set[int] = set()
        for _, i, j in picked:
            task, node = rows[i].task, int(col_node[j])
            if resource_fit(
                state.free[node : node + 1], state.gpu_free_milli[node : node + 1], task.request
            )[0]:
                bindings.append(Binding(task.id, node, state.assume(task, node)))
                placed.add(task.id)
        return placed
