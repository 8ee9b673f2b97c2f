"""Records what happened to every task and turns it into the run's metrics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from aesp.core import CPU, GPU, MEM, Request, Task, gpu_fit
from aesp.core.resources import FloatArray
from aesp.core.topology import Topology


class Outcome(IntEnum):
    PENDING = 0
    RUNNING = 1
    COMPLETED = 2
    FAILED = 3
    UNSCHEDULED = 4


def gpu_fragmentation(
    free: FloatArray,
    gpu_free_milli: FloatArray,
    up: np.ndarray,
    requests: Sequence[Request],  # type: ignore[type-arg]
) -> float:
    """Fraction of free GPU capacity that no pending GPU request could use.

    A GPU's free share counts as usable when some request fits the node (CPU, memory and enough
    GPUs) and the GPU itself has at least that request's per-GPU share free; free shares on
    down nodes are not counted at all. Returns NaN when nothing is free or nothing is pending.

    Shapes: free ``(N, R)``, gpu_free_milli ``(N, G)``, up ``(N,)``.
    """
    total_free = float(gpu_free_milli[up].sum())
    if total_free <= 0 or not requests:
        return float("nan")
    usable = np.zeros(gpu_free_milli.shape, np.bool_)
    for req in set(requests):
        node_ok = up & (free[:, CPU] >= req.cpu_milli) & (free[:, MEM] >= req.mem_mib)
        node_ok &= gpu_fit(gpu_free_milli, req)
        usable |= node_ok[:, None] & (gpu_free_milli >= req.gpu_milli)
    stranded = np.where(usable, 0.0, gpu_free_milli)[up].sum()
    return float(stranded / total_free)


@dataclass
class RunMetrics:
    """Per-scheduler results, as written to ``--json``."""

    tasks: int
    completed: int
    failed: int
    unscheduled: int
    mean_wait_s: float
    p95_wait_s: float
    mean_jct_s: float
    makespan_s: float
    util: dict[str, float]
    sla_violation_rate: float
    gpu_fragmentation: float
    sim_wall_s: float
    events: int = 0
    events_per_s: float = 0.0
    cycles: int = 0
    mean_decision_ms: float = 0.0
    invalid_bindings: int = 0
    transfer_usd: float = 0.0
    compute_usd: float = 0.0
    compliance_usd: float = 0.0
    placements: int = 0
    """Bindings the scheduler made (valid or not); the mis-schedule rate's denominator."""
    misschedules: int = 0
    """Bindings to a node that was, in ground truth, down or over the overload threshold."""
    misschedules_down: int = 0
    """The mis-schedules whose node was down (the rest were overloaded)."""
    killed: int = 0
    """Tasks killed by a node failure (counted in ``failed``)."""
    mean_decision_staleness_s: float = 0.0
    """Mean age of the chosen node's information when a binding was made."""
    p95_decision_staleness_s: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def misschedule_rate(self) -> float:
        """Mis-schedules per binding made; 0 when nothing was bound."""
        return self.misschedules / self.placements if self.placements else 0.0

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        return {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in out.items()}


def _finite_stat(values: Sequence[float], q: float, mean: bool = False) -> float:
    """Mean (or the ``q``-th percentile) of the finite values; 0 when there are none."""
    a = np.asarray(values, np.float64)
    a = a[np.isfinite(a)]
    if not a.size:
        return 0.0
    return float(a.mean()) if mean else float(np.percentile(a, q))


class Recorder:
    """Per-task timestamps plus time integrals of the allocation."""

    def __init__(self, tasks: Sequence[Task], capacity_total: FloatArray) -> None:
        n = len(tasks)
        self.tasks = tasks
        self.pos = {t.id: i for i, t in enumerate(tasks)}
        self.outcome = np.zeros(n, np.int8)
        self.bind_s = np.full(n, np.nan)
        self.start_s = np.full(n, np.nan)
        self.end_s = np.full(n, np.nan)
        self.node = np.full(n, -1, np.int64)
        self.rtt_ms = np.full(n, np.nan)
        self.transfer_usd = 0.0
        self.compute_usd = 0.0
        self.compliance_usd = 0.0
        self.capacity_total = capacity_total
        self.alloc_integral = np.zeros(3)
        self.last_t: float | None = None
        self.frag_samples: list[float] = []
        self.decision_s: list[float] = []
        self.invalid_bindings = 0
        self.counters: dict[str, float] = {}
        """Scheduler telemetry summed over cycles (``Decision.counters``)."""
        self.placements = 0
        self.misschedules = 0
        self.misschedules_down = 0
        self.killed = 0
        self.decision_staleness_s: list[float] = []

    def advance(self, now_s: float, allocated_total: FloatArray) -> None:
        """Accumulate the allocation held since the previous event."""
        if self.last_t is not None and now_s > self.last_t:
            self.alloc_integral += allocated_total * (now_s - self.last_t)
        self.last_t = now_s if self.last_t is None else max(self.last_t, now_s)

    def set(self, task_id: int, outcome: Outcome) -> None:
        self.outcome[self.pos[task_id]] = outcome

    def placed(self, staleness_s: float, misscheduled: bool, node_down: bool = False) -> None:
        """Count one binding the scheduler made, with its node's staleness at decision time."""
        self.placements += 1
        self.misschedules += misscheduled
        self.misschedules_down += node_down
        self.decision_staleness_s.append(staleness_s)

    def bound(self, task_id: int, now_s: float, node: int, rtt_ms: float) -> None:
        i = self.pos[task_id]
        self.bind_s[i], self.node[i], self.rtt_ms[i] = now_s, node, rtt_ms
        self.outcome[i] = Outcome.RUNNING

    def summary(self, topology: Topology, wall_s: float, events: int) -> RunMetrics:
        arrival = np.array([t.arrival_s for t in self.tasks])
        done = self.outcome == Outcome.COMPLETED
        waited = ~np.isnan(self.bind_s)
        wait = (self.bind_s - arrival)[waited]
        jct = (self.end_s - arrival)[done]
        span_end = float(np.nanmax(self.end_s)) if done.any() else 0.0
        span = span_end - float(arrival.min()) if len(arrival) else 0.0
        util = np.divide(
            self.alloc_integral,
            self.capacity_total * span,
            out=np.zeros(3),
            where=self.capacity_total * span > 0,
        )
        frag = [f for f in self.frag_samples if not np.isnan(f)]
        decision_ms = 1000.0 * float(np.mean(self.decision_s)) if self.decision_s else 0.0
        return RunMetrics(
            tasks=len(self.tasks),
            completed=int(done.sum()),
            failed=int((self.outcome == Outcome.FAILED).sum()),
            unscheduled=int((self.outcome == Outcome.UNSCHEDULED).sum()),
            mean_wait_s=float(wait.mean()) if wait.size else float("nan"),
            p95_wait_s=float(np.percentile(wait, 95)) if wait.size else float("nan"),
            mean_jct_s=float(jct.mean()) if jct.size else float("nan"),
            makespan_s=span,
            util={"cpu": float(util[CPU]), "mem": float(util[MEM]), "gpu": float(util[GPU])},
            sla_violation_rate=self.sla_violation_rate(),
            gpu_fragmentation=float(np.mean(frag)) if frag else float("nan"),
            sim_wall_s=wall_s,
            events=events,
            events_per_s=events / wall_s if wall_s > 0 else 0.0,
            cycles=len(self.decision_s),
            mean_decision_ms=decision_ms,
            invalid_bindings=self.invalid_bindings,
            transfer_usd=self.transfer_usd,
            compute_usd=self.compute_usd,
            compliance_usd=self.compliance_usd,
            placements=self.placements,
            misschedules=self.misschedules,
            misschedules_down=self.misschedules_down,
            killed=self.killed,
            mean_decision_staleness_s=_finite_stat(self.decision_staleness_s, 50, mean=True),
            p95_decision_staleness_s=_finite_stat(self.decision_staleness_s, 95),
            extra=dict(self.counters),
        )

    def sla_violation_rate(self) -> float:
        """Share of tasks with a latency SLO that never ran or ran beyond their SLO's RTT.

        A latency-bound task violates its SLO when it was not run at all, or when the network
        round trip between its data origin and the node it ran on exceeds the SLO.
        """
        slo = np.array(
            [t.latency_slo_ms if t.latency_slo_ms is not None else np.nan for t in self.tasks]
        )
        has = ~np.isnan(slo)
        if not has.any():
            return 0.0
        ran = self.outcome == Outcome.COMPLETED
        bad = ~ran | (np.nan_to_num(self.rtt_ms, nan=0.0) > np.nan_to_num(slo, nan=np.inf))
        return float(bad[has].mean())
