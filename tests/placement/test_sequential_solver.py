"""The kube-style sequential solver: capacity safety, queue order, statuses, node rotation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aesp.core import ClusterSnapshot, Code, Decision, NodeTable, Task, binding_fits
from aesp.placement import build_scheduler
from aesp.placement.framework.profile import Profile
from aesp.placement.framework.runtime import Framework
from aesp.placement.solvers.sequential import SequentialSolver, queue_order
from aesp.testing import cluster, make_node, make_task, snapshot

SAFETY_PROFILES = ("kube-default", "best-fit", "first-fit", "random", "load-aware")


def apply(table: NodeTable, snap: ClusterSnapshot, tasks: list[Task], decision: Decision) -> None:
    """Apply bindings one by one as the simulator would; fail on any over-commit."""
    by_id = {t.id: t for t in tasks}
    free = table.capacity - snap.allocated
    gpu_free = snap.gpu_free_milli.copy()
    seen: set[int] = set()
    for b in decision.bindings:
        assert b.task_id in by_id and b.task_id not in seen, f"unknown or repeated {b}"
        seen.add(b.task_id)
        task = by_id[b.task_id]
        why = binding_fits(free[b.node], gpu_free[b.node], task.request, b.gpus)
        assert why == "", f"{b} for {task.request}: {why}"
        free[b.node] -= task.request.vector()
        for g in b.gpus:
            gpu_free[b.node, g] -= task.request.gpu_milli
    assert (free >= -1e-6).all()
    assert ((gpu_free >= -1e-6) & (gpu_free <= 1000 + 1e-6)).all()
    # Every pending task is either bound or explained.
    assert seen | set(decision.statuses) == set(by_id)
    assert not seen & set(decision.statuses)


node_st = st.tuples(
    st.sampled_from([1000, 2000, 4000, 8000]),  # cpu_milli
    st.sampled_from([1024, 4096, 16384]),  # mem_mib
    st.integers(0, 4),  # GPUs
)
task_st = st.tuples(
    st.sampled_from([0, 250, 500, 1000, 3000]),
    st.sampled_from([0, 512, 2048, 8192]),
    st.sampled_from([(0, 0), (1, 250), (1, 500), (1, 1000), (2, 1000), (4, 1000)]),
    st.integers(0, 2),  # priority
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.lists(node_st, min_size=1, max_size=6),
    task_specs=st.lists(task_st, min_size=1, max_size=14),
    profile=st.sampled_from(SAFETY_PROFILES),
    seed=st.integers(0, 3),
)
def test_never_over_commits(
    nodes: list[tuple[int, int, int]],
    task_specs: list[tuple[int, int, tuple[int, int], int]],
    profile: str,
    seed: int,
) -> None:
    table = cluster([
        make_node(f"n{i}").cpu(c).mem(m).gpus(g, "T4") for i, (c, m, g) in enumerate(nodes)
    ])
    tasks = [
        make_task(i).cpu(c).mem(m).gpu(gc, gm).priority(p).arrival(i).build()
        for i, (c, m, (gc, gm), p) in enumerate(task_specs)
    ]
    scheduler = build_scheduler(profile, seed=seed)
    snap = snapshot(table)
    first = scheduler.decide(snap, tasks[: len(tasks) // 2])
    apply(table, snap, tasks[: len(tasks) // 2], first)
    # Second cycle on a cluster already holding the first cycle's bindings.
    alloc = np.zeros_like(snap.allocated)
    gpu_free = snap.gpu_free_milli.copy()
    for b in first.bindings:
        t = tasks[b.task_id]
        alloc[b.node] += t.request.vector()
        for g in b.gpus:
            gpu_free[b.node, g] -= t.request.gpu_milli
    snap2 = snapshot(table, allocated=alloc, gpu_free=gpu_free)
    rest = tasks[len(tasks) // 2 :]
    apply(table, snap2, rest, scheduler.decide(snap2, rest))


def test_queue_order_priority_then_arrival_then_id() -> None:
    tasks = [
        make_task(0).priority(0).arrival(0).build(),
        make_task(1).priority(2).arrival(9).build(),
        make_task(2).priority(1).arrival(5).build(),
        make_task(3).priority(1).arrival(1).build(),
        make_task(4).priority(1).arrival(1).build(),
    ]
    assert [t.id for t in queue_order(tasks)] == [1, 3, 4, 2, 0]


def test_higher_priority_is_placed_first() -> None:
    # One node with room for one 3000m task: the later, higher-priority task gets it.
    table = cluster([make_node("a").cpu(4000)])
    low = make_task(0).cpu(3000).priority(0).arrival(0).build()
    high = make_task(1).cpu(3000).priority(5).arrival(10).build()
    decision = build_scheduler("kube-default").decide(snapshot(table), [low, high])
    assert [b.task_id for b in decision.bindings] == [1]
    assert decision.statuses[0].code == Code.UNSCHEDULABLE


def test_same_priority_earlier_arrival_first() -> None:
    table = cluster([make_node("a").cpu(4000)])
    late = make_task(0).cpu(3000).arrival(10).build()
    early = make_task(1).cpu(3000).arrival(2).build()
    decision = build_scheduler("first-fit").decide(snapshot(table), [late, early])
    assert [b.task_id for b in decision.bindings] == [1]


def test_statuses_for_unfit_and_impossible_tasks() -> None:
    from aesp.core import Link, Topology
    from aesp.testing import make_site

    topo = Topology.build([make_site("us", "US"), make_site("eu", "EU")], [Link("us", "eu", 75, 1000)])
    table = cluster(
        [make_node("a").cpu(4000).mem(8192).site("us"), make_node("g").cpu(4000).mem(8192).gpus(1, "T4").site("us")],
        topo,
    )
    snap = snapshot(table, allocated=[[3000, 0, 0], [3000, 0, 0]])
    pending = [
        make_task(0).cpu(2000).build(),  # fits an empty node, not now
        make_task(1).cpu(5000).build(),  # larger than any node
        make_task(2).cpu(100).jurisdictions("EU").build(),  # no node in the EU
        make_task(3).cpu(100).gpu(1, 500).gpu_models("A100").build(),  # no A100 anywhere
        make_task(4).cpu(500).build(),  # fits
    ]
    decision = build_scheduler("kube-default").decide(snap, pending)
    assert [b.task_id for b in decision.bindings] == [4]
    s = decision.statuses
    assert (s[0].code, s[0].plugin) == (Code.UNSCHEDULABLE, "NodeResourcesFit")
    assert (s[1].code, s[1].plugin) == (Code.UNRESOLVABLE, "NodeResourcesFit")
    assert (s[2].code, s[2].plugin) == (Code.UNRESOLVABLE, "Jurisdiction")
    assert (s[3].code, s[3].plugin) == (Code.UNSCHEDULABLE, "GpuModel")
    assert decision.solver == "sequential"


def test_tasks_in_one_cycle_see_each_other() -> None:
    # Two 3000m tasks on two 4000m nodes: the second cannot land on the first's node.
    table = cluster([make_node("a").cpu(4000), make_node("b").cpu(4000)])
    pending = [make_task(0).cpu(3000).build(), make_task(1).cpu(3000).arrival(1).build()]
    decision = build_scheduler("first-fit").decide(snapshot(table), pending)
    assert sorted(b.node for b in decision.bindings) == [0, 1]


def test_same_seed_same_decision() -> None:
    table = cluster([make_node(f"n{i}").cpu(8000) for i in range(8)])
    pending = [make_task(i).cpu(1000).arrival(i).build() for i in range(12)]
    for profile in ("kube-default", "random"):
        one = build_scheduler(profile, seed=11).decide(snapshot(table), pending)
        two = build_scheduler(profile, seed=11).decide(snapshot(table), pending)
        assert one.bindings == two.bindings


def solver(percentage: int) -> SequentialSolver:
    profile = Profile(name="t", percentage_of_nodes_to_score=percentage)
    return SequentialSolver(Framework.from_profile(profile))


def test_rotation_over_all_feasible_nodes() -> None:
    # 200 nodes, 10 % -> max(20, 100) = 100 nodes per task, starting where the last one stopped.
    s = solver(10)
    mask = np.ones(200, np.bool_)
    np.testing.assert_array_equal(s.candidates(mask), np.arange(0, 100))
    assert s.next_start_node_index == 100
    np.testing.assert_array_equal(s.candidates(mask), np.arange(100, 200))
    assert s.next_start_node_index == 0  # (100 + 99 + 1) % 200


def test_rotation_skips_infeasible_nodes() -> None:
    # 400 nodes, only the even ones feasible; k = max(40, 100) = 100.
    s = solver(10)
    mask = np.arange(400) % 2 == 0
    np.testing.assert_array_equal(s.candidates(mask), np.arange(0, 200, 2))
    assert s.next_start_node_index == 199  # the 100th feasible node is 198
    np.testing.assert_array_equal(s.candidates(mask), np.arange(200, 400, 2))
    assert s.next_start_node_index == 399  # (199 + 199 + 1) % 400
    # From 399 (infeasible) the search wraps to 0, 2, ..., 198.
    np.testing.assert_array_equal(s.candidates(mask), np.arange(0, 200, 2))


def test_fewer_feasible_than_k_scores_all_and_keeps_the_start() -> None:
    s = solver(10)
    s.next_start_node_index = 37
    mask = np.zeros(200, np.bool_)
    mask[[3, 50, 120]] = True
    np.testing.assert_array_equal(s.candidates(mask), [3, 50, 120])
    assert s.next_start_node_index == 37


def test_rotation_visible_in_decisions(tmp_path: Path) -> None:
    # First fit over 200 identical nodes: with 10 % each task sees the next 100 nodes, so the
    # second task's best (lowest index) candidate is node 100; with 100 % both go to node 0.
    table = cluster([make_node(f"n{i:03d}").cpu(4000) for i in range(200)])
    pending = [make_task(0).cpu(1000).build(), make_task(1).cpu(1000).arrival(1).build()]
    nodes = {}
    for pct in (10, 100):
        path = tmp_path / f"ff{pct}.yaml"
        path.write_text(
            f"name: ff{pct}\npercentage_of_nodes_to_score: {pct}\n"
            "filters: [NodeResourcesFit]\nscores: [FirstFit]\n"
        )
        decision = build_scheduler(str(path)).decide(snapshot(table), pending)
        nodes[pct] = [b.node for b in decision.bindings]
    assert nodes == {10: [0, 100], 100: [0, 0]}


@pytest.mark.parametrize("percentage", [0, 100])
def test_small_clusters_score_every_feasible_node(percentage: int) -> None:
    s = solver(percentage)
    mask = np.ones(99, np.bool_)
    assert len(s.candidates(mask)) == 99
