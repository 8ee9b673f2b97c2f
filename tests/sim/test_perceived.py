"""Driver hooks for perceived state: a periodic ticker, mis-schedules, staleness at decision."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from aesp.core import Binding, ClusterSnapshot, Decision, Task
from aesp.sim.driver import Simulation
from aesp.sim.faults import Episodes, FaultConfig, FaultPlan
from aesp.sim.fleet import Fleet
from aesp.testing import cluster, make_node, make_task


class ToNode0:
    """Binds every pending task to node 0."""

    name = "to-node-0"

    def decide(self, snapshot: ClusterSnapshot, pending: Sequence[Task]) -> Decision:
        return Decision(tuple(Binding(t.id, 0) for t in pending))


class StaleView:
    """Shows the fleet as it was at t=0 (node 0 up, nothing used), 7 s old."""

    def __init__(self) -> None:
        self.failed: list[tuple[int, float]] = []

    def observe(self, fleet: Fleet, now_s: float) -> ClusterSnapshot:
        snap = fleet.snapshot(now_s)
        up = np.ones(len(fleet.table), np.bool_)
        return ClusterSnapshot(snap.table, now_s, snap.allocated, np.zeros_like(snap.usage),
                               snap.gpu_free_milli, up, np.full(len(up), 7.0), snap.temperature_c)

    def bind_failed(self, node: int, now_s: float) -> None:
        self.failed.append((node, now_s))


class CountingTicker:
    def __init__(self, every_s: float) -> None:
        self.every_s, self.next_tick_s, self.times = every_s, 0.0, []  # type: ignore[var-annotated]

    def tick(self, fleet: Fleet, now_s: float) -> bool:
        self.times.append(now_s)
        self.next_tick_s = now_s + self.every_s
        return False


def plan_with(failures: Episodes, bursts: Episodes, burst_cpu: list[float]) -> FaultPlan:
    empty = Episodes(np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    return FaultPlan(FaultConfig(), 2, failures, empty, bursts, np.array(burst_cpu),
                     np.random.default_rng(0))


def test_ticker_runs_only_while_tasks_are_pending_or_to_arrive() -> None:
    # One task arrives at 12 and is bound at 13; ticks every 5 s: 0, 5, 10 (then it is bound).
    table = cluster([make_node("a").cpu(4000), make_node("b").cpu(4000)])
    ticker = CountingTicker(5.0)
    sim = Simulation(table, [make_task(0).cpu(1000).work(100).arrival(12).build()], ToNode0(),
                     ticker=ticker)
    m = sim.run()
    assert ticker.times == [0.0, 5.0, 10.0]
    assert m.completed == 1


def test_bindings_to_down_or_overloaded_nodes_are_misschedules() -> None:
    # Node 0 (4000m) bursts by 3800m (95 %) from 0 to 20 s and is down from 30 to 60 s.
    # t0 at 0 -> bound at 1 while bursting: overload mis-schedule (it still runs).
    # t1 at 35 -> cycle at 36: node 0 down -> mis-schedule, bind fails; retries every 10 s
    # (46, 56) fail too; node 0 back at 60 -> cycle at 61 binds t1. 5 placements, 4 bad.
    table = cluster([make_node("a").cpu(4000), make_node("b").cpu(4000)])
    tasks = [make_task(0).cpu(100).work(5).build(), make_task(1).cpu(100).work(5).arrival(35).build()]
    failures = Episodes(np.array([0]), np.array([30.0]), np.array([60.0]))
    bursts = Episodes(np.array([0]), np.array([0.0]), np.array([20.0]))
    view = StaleView()
    sim = Simulation(table, tasks, ToNode0(), observer=view,
                     faults=plan_with(failures, bursts, [3800.0]))
    m = sim.run()
    assert (m.placements, m.misschedules, m.misschedules_down) == (5, 4, 3)
    assert m.misschedule_rate == 0.8
    assert [t for _, t in view.failed] == [36.0, 46.0, 56.0]
    assert sim.recorder.bind_s.tolist() == [1.0, 61.0]
    assert m.mean_decision_staleness_s == 7.0 and m.p95_decision_staleness_s == 7.0
    assert m.completed == 2
    assert sim.fleet.usage[0, 0] == 0.0  # burst gone, tasks done
