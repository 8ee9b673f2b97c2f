"""The seeded fault process and how the driver applies failures and bursts."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.placement import build_scheduler
from aesp.sim.driver import Simulation
from aesp.sim.faults import Episodes, FaultConfig, FaultKind, FaultPlan
from aesp.testing import cluster, make_node, make_task

RATES = FaultConfig(
    failure_mtbf_s=3600.0, disconnect_mtbf_s=900.0, burst_mtbf_s=1200.0, jitter_mean_s=1.0
)


def draw(seed: int, config: FaultConfig = RATES) -> FaultPlan:
    return FaultPlan.draw(config, np.full(20, 8000.0), 7200.0, np.random.default_rng(seed))


def test_same_seed_same_timeline_other_seed_differs() -> None:
    a, b, c = draw(3), draw(3), draw(4)
    assert a.events() == b.events()
    np.testing.assert_array_equal(a.disconnects.start_s, b.disconnects.start_s)
    assert [a.delay_s() for _ in range(5)] == [b.delay_s() for _ in range(5)]
    assert a.events() != c.events()


def test_episodes_start_in_horizon_and_do_not_overlap_per_node() -> None:
    plan = draw(1)
    for ep in (plan.failures, plan.disconnects, plan.bursts):
        assert len(ep) > 0
        assert (ep.start_s >= 0).all() and (ep.start_s < 7200).all() and (ep.end_s > ep.start_s).all()
        for i in np.unique(ep.node):
            s, e = ep.start_s[ep.node == i], ep.end_s[ep.node == i]
            assert (s[1:] >= e[:-1]).all()
    # Bursts take 40-70 % of the 8000m CPU.
    assert (plan.burst_cpu_milli >= 3200).all() and (plan.burst_cpu_milli <= 5600).all()


def test_a_kind_switched_off_never_happens_and_others_keep_their_timeline() -> None:
    plan = draw(2, FaultConfig(disconnect_mtbf_s=900.0))
    assert plan.events() == [] and len(plan.disconnects) > 0
    np.testing.assert_array_equal(plan.disconnects.start_s, draw(2).disconnects.start_s)
    assert plan.delay_s() == 0.0


def test_active_marks_nodes_inside_an_episode() -> None:
    ep = Episodes(np.array([0, 2]), np.array([10.0, 20.0]), np.array([15.0, 30.0]))
    assert ep.active(10.0, 3).tolist() == [True, False, False]
    assert ep.active(15.0, 3).tolist() == [False, False, False]  # end is exclusive
    assert ep.active(25.0, 3).tolist() == [False, False, True]


def test_bad_config_is_rejected() -> None:
    with pytest.raises(ValueError, match="failure_mtbf_s"):
        FaultConfig(failure_mtbf_s=0.0)
    with pytest.raises(ValueError, match="burst_cpu_frac"):
        FaultConfig(burst_cpu_frac=(0.5, 0.2))


def one_failure(node: int, start_s: float, end_s: float, n: int = 2) -> FaultPlan:
    empty = Episodes(np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    fail = Episodes(np.array([node]), np.array([start_s]), np.array([end_s]))
    return FaultPlan(FaultConfig(), n, fail, empty, empty, np.zeros(0), np.random.default_rng(0))


def test_a_failed_nodes_tasks_are_killed_and_accounted() -> None:
    # first-fit puts t0 and t1 (3000m each, 100 s) on node a at t=1; a fails at 50, back at 80.
    # t2 arrives at 60 and goes to b (a is down, the oracle sees it). Killed: t0, t1.
    table = cluster([make_node("a").cpu(8000), make_node("b").cpu(8000)])
    tasks = [make_task(i).cpu(3000).work(100).build() for i in range(2)]
    tasks.append(make_task(2).cpu(3000).work(100).arrival(60).build())
    sim = Simulation(table, tasks, build_scheduler("first-fit", seed=0), faults=one_failure(0, 50, 80))
    m = sim.run()
    assert (m.completed, m.failed, m.unscheduled, m.killed) == (1, 2, 0, 2)
    assert m.completed + m.failed + m.unscheduled == m.tasks
    assert sim.recorder.node.tolist() == [0, 0, 1]
    assert m.misschedules == 0 and m.placements == 3
    np.testing.assert_array_equal(sim.fleet.allocated, np.zeros((2, 3)))
    assert sim.fleet.up.all()


def test_fault_events_are_ordered_with_bursts_carrying_cpu() -> None:
    events = draw(5).events()
    assert events == sorted(events)
    starts = [e for e in events if e.kind == FaultKind.BURST_START]
    assert starts and all(e.cpu_milli > 0 for e in starts)
