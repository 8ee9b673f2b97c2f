"""Reservations: a starving multi-GPU task gets a node held for it and is placed once it drains."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import yaml

from aesp.core import Code, NodeTable, Task
from aesp.core.resources import FloatArray, IntArray
from aesp.placement import CycleState, build_scheduler
from aesp.placement.framework.registry import register, registered
from aesp.placement.framework.reservation import ReservationSettings, closeness
from aesp.placement.scheduler import FrameworkScheduler
from aesp.sim.driver import SimConfig, Simulation
from aesp.testing import cluster, make_node, make_task, snapshot

PREFER_A = "TestPreferFirstNode_reservation"


class PreferFirstNode:
    """Test-only score: node 0 scores 100, every other node 0."""

    NAME: ClassVar[str] = PREFER_A

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        return np.where(candidates == 0, 100.0, 0.0)


if PREFER_A not in registered():
    register(PreferFirstNode)


def profile(tmp_path: Path, solver: str, reservation: dict[str, float] | None, score: str) -> str:
    doc: dict[str, Any] = {
        "name": f"res-{solver}-{bool(reservation)}",
        "solver": solver,
        "filters": ["NodeUp", "NodeResourcesFit"],
        "scores": [{"name": score}],
    }
    if reservation:
        doc["reservation"] = reservation
    path = tmp_path / f"{doc['name']}-{score}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def two_gpu_nodes() -> NodeTable:
    return cluster([make_node(n).cpu(32000).mem(65536).gpus(2, "T4") for n in "ab"])


# --- driven through decide() on snapshots ------------------------------------------------------


@pytest.mark.parametrize("solver", ["sequential", "hungarian"])
def test_held_node_refuses_small_tasks_and_is_released(tmp_path: Path, solver: str) -> None:
    table = two_gpu_nodes()
    big = make_task(0).cpu(1000).gpu(2).arrival(0).build()
    # t=200: each node has one GPU busy. The big task has waited 200 s >= after_s 100.
    busy = snapshot(table, allocated=[[0, 0, 1000]] * 2, gpu_free=[[1000, 0], [0, 1000]], time_s=200)
    small = make_task(1).cpu(1000).gpu(1).arrival(190).build()

    plain = build_scheduler(profile(tmp_path, solver, None, PREFER_A))
    d = plain.decide(busy, [big, small])
    assert {b.task_id: b.node for b in d.bindings} == {1: 0}  # the preferred node a
    assert d.statuses[0].code == Code.UNSCHEDULABLE

    held = build_scheduler(profile(tmp_path, solver, {"after_s": 100, "max_held": 1}, PREFER_A))
    d = held.decide(busy, [big, small])
    # Both nodes are equally close (1 of 2 GPUs free): the first, a, is held for the big task,
    # so the small one goes to b despite preferring a.
    assert held.solver.reservations is not None
    assert held.solver.reservations.held == {0: 0}
    assert {b.task_id: b.node for b in d.bindings} == {1: 1}
    assert d.statuses[0].code == Code.UNSCHEDULABLE

    # t=300: a drained (its task finished), b is full. The big task is placed on a; another
    # small task finds no room (a is taken by the big task now).
    drained = snapshot(table, allocated=[[0, 0, 0], [1000, 1024, 2000]], gpu_free=[[1000, 1000], [0, 0]], time_s=300)
    late = make_task(2).cpu(1000).gpu(1).arrival(290).build()
    d = held.decide(drained, [big, late])
    assert {b.task_id: b.node for b in d.bindings} == {0: 0}
    # Next cycle: the big task is no longer pending, so the hold is released.
    after = snapshot(table, allocated=[[1000, 1024, 2000], [1000, 1024, 1000]], gpu_free=[[0, 0], [0, 1000]], time_s=301)
    d = held.decide(after, [late])
    assert held.solver.reservations.held == {}
    assert {b.task_id: b.node for b in d.bindings} == {2: 1}


def test_no_hold_before_after_s(tmp_path: Path) -> None:
    table = two_gpu_nodes()
    big = make_task(0).gpu(2).arrival(150).build()  # waited 50 s < 100 s
    busy = snapshot(table, allocated=[[0, 0, 1000]] * 2, gpu_free=[[1000, 0], [0, 1000]], time_s=200)
    s = build_scheduler(profile(tmp_path, "sequential", {"after_s": 100}, PREFER_A))
    s.decide(busy, [big])
    assert s.solver.reservations is not None and s.solver.reservations.held == {}


def test_no_hold_for_a_task_that_fits_now_or_never(tmp_path: Path) -> None:
    table = two_gpu_nodes()
    s = build_scheduler(profile(tmp_path, "sequential", {"after_s": 0}, PREFER_A))
    never = make_task(0).gpu(4).build()  # no node has 4 GPUs: unresolvable, never held
    fits = make_task(1).gpu(1).build()
    d = s.decide(snapshot(table, time_s=1000), [never, fits])
    assert s.solver.reservations is not None and s.solver.reservations.held == {}
    assert d.statuses[0].code == Code.UNRESOLVABLE


def test_max_held(tmp_path: Path) -> None:
    table = cluster([make_node(f"n{i}").gpus(2, "T4") for i in range(3)])
    full = snapshot(table, allocated=[[0, 0, 1000]] * 3, gpu_free=[[1000, 0]] * 3, time_s=1000)
    bigs = [make_task(i).cpu(100).gpu(2).arrival(i).build() for i in range(3)]
    s = build_scheduler(profile(tmp_path, "sequential", {"after_s": 10, "max_held": 2}, PREFER_A))
    s.decide(full, bigs)
    assert s.solver.reservations is not None
    # The two oldest tasks hold two distinct nodes; the third waits for a hold.
    held = s.solver.reservations.held
    assert sorted(held) == [0, 1] and len(set(held.values())) == 2


def test_closeness() -> None:
    table = cluster([
        make_node("a").cpu(4000).mem(8192).gpus(4, "T4"),
        make_node("b").cpu(4000).mem(8192).gpus(4, "T4"),
    ])
    snap = snapshot(
        table, allocated=[[3000, 0, 1000], [0, 6144, 3000]],
        gpu_free=[[1000, 1000, 1000, 0], [1000, 0, 0, 0]],
    )
    task = make_task(0).cpu(2000).mem(4096).gpu(2).build()
    # a: cpu 1000 / 2000 = 0.5, mem 1, GPUs min(3 / 2, 1) = 1 -> 0.5
    # b: cpu 1, mem 2048 / 4096 = 0.5, GPUs 1 / 2 = 0.5 -> 0.5; shrink b's memory further:
    np.testing.assert_allclose(closeness(CycleState(snap, np.random.default_rng(0)), task), [0.5, 0.5])
    snap2 = snapshot(table, allocated=[[3000, 0, 1000], [0, 7168, 3000]], gpu_free=[[1000, 1000, 1000, 0], [1000, 0, 0, 0]])
    # b: mem 1024 / 4096 = 0.25
    np.testing.assert_allclose(closeness(CycleState(snap2, np.random.default_rng(0)), task), [0.5, 0.25])
    assert ReservationSettings().after_s == 900.0 and ReservationSettings().max_held == 4


# --- driven through the simulator --------------------------------------------------------------


def starvation_workload() -> tuple[NodeTable, list[Task]]:
    """Two 2-GPU nodes; 1-GPU tasks (100 s) every 10 s for 1000 s; a 2-GPU task at 35 s.

    The first four small tasks start at 1, 11, 21 and 31 s on the four GPUs, so GPUs free one
    at a time, and the backlog (arrivals every 10 s, service 4 per ~100 s) takes each freed GPU
    before its neighbour frees: without a hold the big task waits until the backlog drains.
    """
    table = two_gpu_nodes()
    smalls = [make_task(i).cpu(1000).gpu(1).work(100).arrival(10 * i).build() for i in range(100)]
    big = make_task(1000).cpu(1000).gpu(2).work(100).arrival(35).build()
    return table, [*smalls, big]


def big_start(scheduler: FrameworkScheduler) -> float:
    table, tasks = starvation_workload()
    sim = Simulation(table, tasks, scheduler, SimConfig(record_fragmentation=False))
    metrics = sim.run()
    assert metrics.completed == len(tasks)
    return float(sim.recorder.start_s[sim.recorder.pos[1000]])


@pytest.mark.parametrize("solver", ["sequential", "hungarian"])
def test_reservation_ends_starvation_in_simulation(tmp_path: Path, solver: str) -> None:
    without = big_start(build_scheduler(profile(tmp_path, solver, None, "LeastAllocated")))
    with_hold = big_start(
        build_scheduler(profile(tmp_path, solver, {"after_s": 50, "max_held": 1}, "LeastAllocated"))
    )
    # With the hold: starving from t=85, a node is held at the next completion (~101 s) and
    # drains within one task lifetime (100 s + a cycle): placed by ~ 235 s.
    assert 85 <= with_hold <= 240
    # Without: the backlog keeps taking every freed GPU until arrivals stop at 990 s.
    assert without > 1000
