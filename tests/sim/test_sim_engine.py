"""The event queue and a tiny simulation computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aesp.placement import build_scheduler
from aesp.sim.driver import SimConfig, Simulation
from aesp.sim.engine import EventKind, EventQueue
from aesp.testing import cluster, make_node, make_task


def test_events_pop_by_time_then_kind_then_insertion() -> None:
    q = EventQueue()
    q.push(5.0, EventKind.ARRIVAL, 1)
    q.push(1.0, EventKind.CYCLE)
    q.push(5.0, EventKind.COMPLETE, 2)  # same time: releases before new demand
    q.push(5.0, EventKind.ARRIVAL, 3)  # same time and kind: FIFO
    q.push(5.0, EventKind.CYCLE)
    q.push(5.0, EventKind.START, 4)
    q.push(5.0, EventKind.DEPART, 5)
    order = []
    while q:
        ev = q.pop()
        order.append((ev.time_s, ev.kind, ev.task_id))
    assert order == [
        (1.0, EventKind.CYCLE, -1),
        (5.0, EventKind.COMPLETE, 2),
        (5.0, EventKind.START, 4),
        (5.0, EventKind.ARRIVAL, 1),
        (5.0, EventKind.ARRIVAL, 3),
        (5.0, EventKind.DEPART, 5),
        (5.0, EventKind.CYCLE, -1),
    ]
    assert q.processed == 7 and len(q) == 0


def test_tiny_simulation_by_hand() -> None:
    # Two nodes of 4000m / 8192 MiB, first fit, 1 s cycle interval.
    #   t0 4000m 1024 MiB arrives 0, work 100 | t1 4000m 2048 MiB arrives 0, work 50
    #   t2 2000m 4096 MiB arrives 10, work 30
    # Cycle at 1: t0 -> node 0, t1 -> node 1; they run 1..101 and 1..51.
    # t2 arrives at 10, cycle at 11 finds no room; t1 completes at 51 -> cycle at 52:
    # t2 -> node 1 (node 0 is full), runs 52..82. Cycles: 1, 11, 52.
    table = cluster([make_node("a").cpu(4000).mem(8192), make_node("b").cpu(4000).mem(8192)])
    tasks = [
        make_task(0).cpu(4000).mem(1024).arrival(0).work(100).build(),
        make_task(1).cpu(4000).mem(2048).arrival(0).work(50).build(),
        make_task(2).cpu(2000).mem(4096).arrival(10).work(30).build(),
    ]
    sim = Simulation(table, tasks, build_scheduler("first-fit"), SimConfig(cycle_interval_s=1.0))
    m = sim.run()
    assert (m.tasks, m.completed, m.failed, m.unscheduled) == (3, 3, 0, 0)
    np.testing.assert_array_equal(sim.recorder.node, [0, 1, 1])
    np.testing.assert_array_equal(sim.recorder.bind_s, [1, 1, 52])
    np.testing.assert_array_equal(sim.recorder.end_s, [101, 51, 82])
    # waits 1, 1, 52 - 10 = 42 -> mean 44 / 3; p95 by linear interpolation of [1, 1, 42]:
    # position 0.95 * 2 = 1.9 -> 1 + 0.9 * (42 - 1) = 37.9
    assert m.mean_wait_s == pytest.approx(44 / 3, rel=1e-12)
    assert m.p95_wait_s == pytest.approx(37.9, rel=1e-12)
    # JCT 101, 51, 82 - 10 = 72 -> mean 224 / 3; makespan 101 - 0 = 101
    assert m.mean_jct_s == pytest.approx(224 / 3, rel=1e-12)
    assert m.makespan_s == 101.0
    # CPU allocated over time: [1, 51) 8000, [51, 52) 4000, [52, 82) 6000, [82, 101) 4000
    #   = 400000 + 4000 + 180000 + 76000 = 660000 over 8000 * 101 = 808000
    assert m.util["cpu"] == pytest.approx(660000 / 808000, rel=1e-12)
    # Memory: 3072 * 50 + 1024 * 1 + 5120 * 30 + 1024 * 19 = 327680 over 16384 * 101 -> 20 / 101
    assert m.util["mem"] == pytest.approx(20 / 101, rel=1e-12)
    assert m.util["gpu"] == 0.0  # no GPU capacity
    # Events: 3 arrivals + 3 cycles + 3 starts + 3 completions.
    assert (m.events, m.cycles, m.invalid_bindings) == (12, 3, 0)
    assert m.sla_violation_rate == 0.0 and math.isnan(m.gpu_fragmentation)


def test_max_wait_departures_count_as_unscheduled() -> None:
    # One 4000m node: t0 holds it for 1000 s; t1 (same size) gives up after 100 s.
    table = cluster([make_node("a").cpu(4000)])
    tasks = [
        make_task(0).cpu(4000).arrival(0).work(1000).build(),
        make_task(1).cpu(4000).arrival(0).work(10).build(),
    ]
    m = Simulation(table, tasks, build_scheduler("first-fit"), SimConfig(max_wait_s=100.0)).run()
    assert (m.completed, m.failed, m.unscheduled) == (1, 0, 1)
    assert m.completed + m.failed + m.unscheduled == m.tasks


def test_pending_at_the_end_counts_as_unscheduled() -> None:
    # Without max_wait_s, a task that never finds GPUs of its model waits until events run out.
    table = cluster([make_node("a").gpus(1, "T4")])
    tasks = [make_task(0).gpu(1, 500).gpu_models("A100").build(), make_task(1).build()]
    m = Simulation(table, tasks, build_scheduler("kube-default")).run()
    assert (m.completed, m.failed, m.unscheduled) == (1, 0, 1)


def test_unresolvable_tasks_count_as_failed() -> None:
    table = cluster([make_node("a").cpu(4000)])
    tasks = [make_task(0).cpu(10000).build(), make_task(1).cpu(1000).build()]
    m = Simulation(table, tasks, build_scheduler("kube-default")).run()
    assert (m.completed, m.failed, m.unscheduled) == (1, 1, 0)


def test_duplicate_task_ids_are_rejected() -> None:
    table = cluster([make_node("a")])
    with pytest.raises(ValueError, match="unique"):
        Simulation(table, [make_task(0).build(), make_task(0).build()], build_scheduler("first-fit"))
