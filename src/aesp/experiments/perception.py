"""The perception experiment: schedulers decide on what node agents reported, not on ground truth.

:class:`PerceivedState` is both the simulator's :class:`aesp.sim.driver.Observer` and its
:class:`aesp.sim.driver.Ticker`. Every ``tick_s`` of simulated time (one fleet-wide event, not
one per node) it writes the fleet's ground-truth usage into a
:class:`aesp.perception.FleetMetrics`, ticks the agent of every node that is up, carries the
reports each agent sends over a simulated link (refused while the node is disconnected, delayed
by jitter) and feeds the ones that arrived into a :class:`aesp.perception.GlobalView`. A
scheduling cycle sees ``GlobalView.cluster_snapshot``: usage as last reported, ``staleness_s``
since the last report, and ``up`` False once a node missed ``stale_after_reports`` reports at its
policy's steady interval. Allocations and GPU shares come from the control plane's own binding
bookkeeping (exact).

Agents with a fixed interval are only ticked when a report is due or they hold a backlog
(``FixedInterval.observe`` does nothing, so skipping the other ticks changes no report); adaptive
agents tick every ``tick_s`` because their change detector needs every sample.

``oracle`` runs the same workload and faults with :class:`aesp.sim.driver.GroundTruth`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from aesp.core import ClusterSnapshot, NodeTable
from aesp.core.resources import BoolArray
from aesp.experiments.runs import Workload
from aesp.experiments.schedulers import make_scheduler
from aesp.perception import (
    Adaptive,
    Agent,
    AgentReport,
    FixedInterval,
    FleetMetrics,
    GlobalView,
    ReportingPolicy,
)
from aesp.sim.driver import Observer, Simulation, Ticker
from aesp.sim.faults import FaultConfig, FaultPlan
from aesp.sim.fleet import Fleet
from aesp.sim.recorder import RunMetrics

PolicyFactory = Callable[[], ReportingPolicy]

POLICIES: dict[str, tuple[PolicyFactory, float]] = {
    "fixed-30s": (lambda: FixedInterval(30.0), 30.0),
    "fixed-5s": (lambda: FixedInterval(5.0), 5.0),
    "adaptive": (Adaptive, 30.0),
    "adaptive+hb": (Adaptive, 30.0),
}
"""Reporting policies by name, with the steady interval a liveness timeout is based on."""
HEARTBEAT_S: dict[str, float] = {"adaptive+hb": 5.0}
"""Policies whose agents also send a small liveness heartbeat every so many seconds.

A silent failure changes no metric the agent could report, so an entropy detector cannot speed
up reporting for it; liveness then rests on missed reports (95 s at a 30 s steady interval). A
heartbeat of a few dozen bytes lets the view mark a dead node down after three missed beats
while full reports stay adaptive."""
HEARTBEAT_BYTES = len(b'{"agent_id":"node-000","seq":123456,"time_s":12345.0}')
ORACLE = "oracle"
POLICY_NAMES: tuple[str, ...] = (*POLICIES, ORACLE)

DEFAULT_FAULTS = FaultConfig(
    failure_mtbf_s=4 * 3600.0,
    failure_mean_s=600.0,
    disconnect_mtbf_s=1800.0,
    disconnect_mean_s=120.0,
    burst_mtbf_s=1800.0,
    burst_mean_s=300.0,
    burst_cpu_frac=(0.4, 0.7),
    jitter_mean_s=2.0,
)
"""Fault rates of ``aesp perception eval`` (per node; see :mod:`aesp.sim.faults`)."""


@dataclass(frozen=True)
class PerceptionConfig:
    """Settings of the perceived-state runs. Units: seconds."""

    faults: FaultConfig = DEFAULT_FAULTS
    tick_s: float = 5.0
    """Agents collect (and may report) every tick."""
    stale_after_reports: float = 3.0
    """A node is believed down after this many steady intervals without a report."""
    buffer_capacity: int = 720


class PerceivedState:
    """Agents over a simulated fleet, and the global view a scheduler decides on.

    Counters: ``reports`` and ``bytes`` count reports the aggregator acknowledged and their
    JSON size on the wire.
    """

    def __init__(
        self,
        table: NodeTable,
        policy: PolicyFactory,
        stale_after_s: float,
        plan: FaultPlan | None = None,
        tick_s: float = 5.0,
        buffer_capacity: int = 720,
        heartbeat_s: float | None = None,
    ) -> None:
        self.table, self.plan, self.tick_s = table, plan, tick_s
        self.heartbeat_s = heartbeat_s
        self._last_beat_s = np.full(len(table), -np.inf)
        self._beats_in_flight: list[tuple[float, int]] = []
        self.metrics = FleetMetrics(table.names)
        self.view = GlobalView(table, stale_after_s=stale_after_s)
        self.agents = [
            Agent(name, name, self.metrics.collector(name), policy(), self._transport(i),
                  buffer_capacity=buffer_capacity)
            for i, name in enumerate(table.names)
        ]
        self.fixed = all(isinstance(a.policy, FixedInterval) for a in self.agents)
        self.reports = 0
        self.bytes = 0
        self._next_tick_s = 0.0
        self._now_s = 0.0
        self._disconnected: BoolArray = np.zeros(len(table), np.bool_)
        self._in_flight: list[tuple[float, int, AgentReport]] = []
        self._seq = 0
        self._bind_failed_s = np.full(len(table), -np.inf)

    @property
    def next_tick_s(self) -> float:
        return self._next_tick_s

    def tick(self, fleet: Fleet, now_s: float) -> bool:
        """Agents of live nodes collect and report; True when a report reached the view."""
        self._now_s, self._next_tick_s = now_s, now_s + self.tick_s
        self.metrics.set_usage(fleet.usage, self.table.capacity)
        if self.plan is not None:
            self._disconnected = self.plan.disconnected(now_s)
        for i, agent in enumerate(self.agents):
            if fleet.up[i] and (not self.fixed or agent.buffered or self._due(agent, now_s)):
                agent.tick(now_s)
        if self.heartbeat_s is not None:
            self._beat(fleet, now_s)
        return self._deliver(now_s) > 0

    def _beat(self, fleet: Fleet, now_s: float) -> None:
        """Live, connected nodes send a heartbeat (ticks are at most ``heartbeat_s`` apart)."""
        for i in np.flatnonzero(fleet.up & ~self._disconnected):
            delay = self.plan.delay_s() if self.plan is not None else 0.0
            heapq.heappush(self._beats_in_flight, (now_s + delay, int(i)))
            self.bytes += HEARTBEAT_BYTES

    def observe(self, fleet: Fleet, now_s: float) -> ClusterSnapshot:
        self._deliver(now_s)
        snap = self.view.cluster_snapshot(now_s, fleet.allocated, fleet.gpu_free_milli)
        if self.heartbeat_s is not None:
            alive = now_s - self._last_beat_s <= 3 * self.heartbeat_s + self.tick_s
            snap = replace(snap, up=snap.up & alive)
        suspect = self._bind_failed_s >= np.nan_to_num(self.view.last_report_s, nan=-np.inf)
        if not suspect.any():
            return snap
        return replace(snap, up=snap.up & ~suspect)

    def bind_failed(self, node: int, now_s: float) -> None:
        """A binding to ``node`` went unacknowledged: believe it down until it reports again."""
        self._bind_failed_s[node] = now_s

    @staticmethod
    def _due(agent: Agent, now_s: float) -> bool:
        last = agent.last_report_s
        return last is None or now_s - last >= agent.policy.interval_s - 1e-9

    def _transport(self, node: int) -> Callable[[AgentReport], bool]:
        def send(report: AgentReport) -> bool:
            if self._disconnected[node]:
                return False
            delay = self.plan.delay_s() if self.plan is not None else 0.0
            self._seq += 1
            heapq.heappush(self._in_flight, (self._now_s + delay, self._seq, report))
            self.reports += 1
            self.bytes += len(report.to_json_bytes())
            return True

        return send

    def _deliver(self, now_s: float) -> int:
        """Hand every report that has arrived by ``now_s`` to the view."""
        while self._beats_in_flight and self._beats_in_flight[0][0] <= now_s:
            arrived, node = heapq.heappop(self._beats_in_flight)
            self._last_beat_s[node] = max(self._last_beat_s[node], arrived)
        n = 0
        while self._in_flight and self._in_flight[0][0] <= now_s:
            self.view.ingest_report(heapq.heappop(self._in_flight)[2])
            n += 1
        return n


@dataclass
class PolicyResult:
    """One reporting policy's run."""

    metrics: RunMetrics
    reports: int = 0
    bytes: int = 0
    faults: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        m = self.metrics
        return {
            "misschedule_rate": m.misschedule_rate,
            "mean_staleness_s": m.mean_decision_staleness_s,
            "p95_staleness_s": m.p95_decision_staleness_s,
            "reports": self.reports,
            "bytes": self.bytes,
            "mean_wait_s": _num(m.mean_wait_s),
            "mean_jct_s": _num(m.mean_jct_s),
            "placements": m.placements,
            "misschedules": m.misschedules,
            "misschedules_down": m.misschedules_down,
            "tasks": m.tasks,
            "completed": m.completed,
            "failed": m.failed,
            "killed": m.killed,
            "unscheduled": m.unscheduled,
            "sim_wall_s": m.sim_wall_s,
        }


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


def fault_horizon_s(workload: Workload) -> float:
    """Faults are drawn until the last arrival plus the longest task's reference run time."""
    return max(t.arrival_s for t in workload.tasks) + max(t.work for t in workload.tasks)


def draw_plan(workload: Workload, faults: FaultConfig) -> FaultPlan:
    """The run's fault timeline, seeded by the workload's seed (the same for every policy)."""
    rng = np.random.default_rng([workload.seed, 0xFA17])
    cpu = workload.table.capacity[:, 0]
    return FaultPlan.draw(faults, cpu, fault_horizon_s(workload), rng)


def run_policy(
    workload: Workload, scheduler: str, policy: str, config: PerceptionConfig = PerceptionConfig()
) -> PolicyResult:
    """One run of ``scheduler`` deciding on what ``policy``'s agents reported (or the oracle).

    Raises:
        ValueError: an unknown policy name.
        ProfileError / UnknownPluginError: an unknown scheduler.
    """
    if policy not in POLICY_NAMES:
        raise ValueError(f"unknown reporting policy {policy!r}; known: {', '.join(POLICY_NAMES)}")
    plan = draw_plan(workload, config.faults)
    observer: Observer | None = None
    ticker: Ticker | None = None
    state: PerceivedState | None = None
    if policy != ORACLE:
        factory, steady_s = POLICIES[policy]
        state = PerceivedState(
            workload.table, factory, config.stale_after_reports * steady_s + config.tick_s, plan,
            config.tick_s, config.buffer_capacity, HEARTBEAT_S.get(policy),
        )
        observer, ticker = state, state
    sim = Simulation(
        workload.table, workload.tasks, make_scheduler(scheduler, workload.seed),
        workload.sim, speed=workload.speed, observer=observer, faults=plan, ticker=ticker,
    )
    metrics = sim.run()
    counts = {
        "failures": len(plan.failures), "disconnects": len(plan.disconnects),
        "bursts": len(plan.bursts),
    }
    if state is None:
        return PolicyResult(metrics, faults=counts)
    return PolicyResult(metrics, state.reports, state.bytes, counts)


def perception_compare(
    workload: Workload,
    scheduler: str = "load-aware",
    policies: Sequence[str] = POLICY_NAMES,
    config: PerceptionConfig = PerceptionConfig(),
) -> dict[str, PolicyResult]:
    """Every policy on the same workload and the same seeded faults."""
    unknown = [p for p in policies if p not in POLICY_NAMES]
    if unknown:
        raise ValueError(f"unknown reporting policies {unknown}; known: {', '.join(POLICY_NAMES)}")
    make_scheduler(scheduler, workload.seed)  # fail on a bad name before any run
    return {p: run_policy(workload, scheduler, p, config) for p in policies}


def perception_document(
    workload: Workload, scheduler: str, config: PerceptionConfig, results: dict[str, PolicyResult]
) -> dict[str, Any]:
    """The ``--json`` document: ``{"scenario", "seed", "scheduler", "faults", "policies"}``."""
    first = next(iter(results.values()), None)
    return {
        "scenario": workload.name,
        "seed": workload.seed,
        "scheduler": scheduler,
        "faults": {**asdict(config.faults), **(first.faults if first else {})},
        "policies": {name: r.to_json() for name, r in results.items()},
    }


__all__ = [
    "DEFAULT_FAULTS",
    "ORACLE",
    "POLICIES",
    "POLICY_NAMES",
    "PerceivedState",
    "PerceptionConfig",
    "PolicyResult",
    "draw_plan",
    "perception_compare",
    "perception_document",
    "run_policy",
]
