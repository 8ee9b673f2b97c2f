"""Reported state: schedulers see usage as agents last reported it (the default perception)."""

from __future__ import annotations

import numpy as np

from aesp.core import Binding
from aesp.experiments import compare, scenario_workload
from aesp.sim.fleet import Fleet
from aesp.sim.reported import ReportedState
from aesp.testing import cluster, make_node, make_task


def one_node() -> tuple[ReportedState, Fleet]:
    table = cluster([make_node("a").cpu(4000).mem(4096)])
    state = ReportedState(table, interval_s=30.0, seed=0)
    state.phase[:] = 10.0  # reports at 10, 40, 70, ...
    state.reported_at[:] = -20.0  # and an idle one before the run
    return state, Fleet(table)


def test_a_report_carries_the_usage_at_its_report_time() -> None:
    # Usage 0 until 50 s, then a 1000m task runs. Syncing before the change at 50 s records the
    # 40 s report as 0; at 65 s the view still says 0 (staleness 25 s); at 75 s it shows the
    # 70 s report, 1000m, 5 s old.
    state, fleet = one_node()
    task = make_task(1).cpu(1000).mem(100).build()
    state.sync(fleet, 50.0)
    fleet.bind(Binding(task.id, 0), task)
    snap = state.observe(fleet, 65.0)
    assert snap.usage[0, 0] == 0.0
    assert snap.staleness_s[0] == 25.0
    snap = state.observe(fleet, 75.0)
    assert snap.usage[0, 0] == 1000.0
    assert snap.staleness_s[0] == 5.0
    assert snap.allocated[0, 0] == 1000.0  # bookkeeping is exact, not reported


def test_staleness_never_exceeds_the_interval_while_up() -> None:
    state, fleet = one_node()
    for now in np.arange(10.0, 400.0, 7.0):
        snap = state.observe(fleet, float(now))
        assert 0.0 <= snap.staleness_s[0] < 30.0
        assert snap.up[0]


def test_a_dead_node_is_believed_down_after_three_missed_reports() -> None:
    # Last report at 40 s; the node dies at 45 s; believed up until 40 + 90 = 130 s.
    state, fleet = one_node()
    state.observe(fleet, 44.0)
    fleet.up[0] = False
    assert state.observe(fleet, 129.0).up[0]
    assert not state.observe(fleet, 131.0).up[0]


def test_before_its_first_report_a_node_shows_its_idle_pre_run_report() -> None:
    # Phase 10 s: the pre-run report is at -20 s, so at 5 s it is 25 s old, idle and up.
    state, fleet = one_node()
    snap = state.observe(fleet, 5.0)
    assert snap.up[0]
    assert snap.staleness_s[0] == 25.0
    assert snap.usage[0, 0] == 0.0


def test_usage_blind_schedulers_are_unaffected_and_usage_readers_differ() -> None:
    # kube-default reads only allocations, so reported state changes nothing for it;
    # load-aware reads usage, so what it decides on differs from ground truth.
    workload = scenario_workload("seed-experiment")
    reported = compare(workload, ["kube-default", "load-aware"])
    oracle = compare(workload, ["kube-default", "load-aware"], oracle=True)
    assert reported["kube-default"].mean_wait_s == oracle["kube-default"].mean_wait_s
    assert reported["kube-default"].mean_jct_s == oracle["kube-default"].mean_jct_s
    assert reported["load-aware"].mean_jct_s != oracle["load-aware"].mean_jct_s
