"""The Hungarian batch solver: optimum over greedy, slots, statuses, priority, top-k, safety."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aesp.core import ClusterSnapshot, Code, Decision, NodeTable, Task, binding_fits
from aesp.core.resources import FloatArray, IntArray
from aesp.placement import CycleState, build_scheduler
from aesp.placement.framework.profile import Profile
from aesp.placement.framework.registry import register, registered
from aesp.placement.scheduler import FrameworkScheduler
from aesp.placement.solvers.hungarian import HungarianSettings
from aesp.testing import cluster, make_node, make_task, snapshot

TABLE_SCORE = "TestTableScore_hungarian"


class TableScore:
    """Test-only score plugin: ``scores["<task id>:<node name>"]``, 0 when absent."""

    NAME: ClassVar[str] = TABLE_SCORE

    def __init__(self, scores: dict[str, float] | None = None) -> None:
        self.scores = scores or {}

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        names = state.snapshot.table.names
        return np.array(
            [float(self.scores.get(f"{task.id}:{names[int(j)]}", 0.0)) for j in candidates]
        )


if TABLE_SCORE not in registered():
    register(TableScore)


def write_profile(tmp_path: Path, solver: str, scores: dict[str, float], **extra: Any) -> Path:
    doc = {
        "name": f"table-{solver}",
        "solver": solver,
        "percentage_of_nodes_to_score": 100,
        "filters": ["NodeUp", "NodeResourcesFit"],
        "scores": [{"name": TABLE_SCORE, "weight": 1, "args": {"scores": scores}}],
        **extra,
    }
    path = tmp_path / f"table-{solver}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def hungarian(**solver_args: Any) -> FrameworkScheduler:
    profile = Profile(
        name="h",
        solver="hungarian",
        solver_args=solver_args,
        filters=({"name": "NodeUp"}, {"name": "NodeResourcesFit"}),  # type: ignore[arg-type]
        scores=({"name": "LeastAllocated"},),  # type: ignore[arg-type]
    )
    return FrameworkScheduler(profile)


def placed(decision: Decision) -> dict[int, int]:
    return {b.task_id: b.node for b in decision.bindings}


# --- optimum versus greedy ---------------------------------------------------------------------

# Two nodes, each with room for one 3000m task. Scores (task:node):
#            a     b
#   task 0  100    90      greedy (task 0 first, best node): 0->a (100), 1->b (0) = 100
#   task 1  100     0      optimum:                          0->b (90),  1->a (100) = 190
GREEDY_TRAP = {"0:a": 100, "0:b": 90, "1:a": 100, "1:b": 0}


def trap() -> tuple[NodeTable, list[Task]]:
    table = cluster([make_node("a").cpu(4000), make_node("b").cpu(4000)])
    tasks = [make_task(0).cpu(3000).arrival(0).build(), make_task(1).cpu(3000).arrival(1).build()]
    return table, tasks


def total(decision: Decision, table: NodeTable) -> float:
    return sum(GREEDY_TRAP[f"{b.task_id}:{table.names[b.node]}"] for b in decision.bindings)


def test_hungarian_beats_greedy(tmp_path: Path) -> None:
    table, tasks = trap()
    greedy = build_scheduler(str(write_profile(tmp_path, "sequential", GREEDY_TRAP)))
    optimal = build_scheduler(str(write_profile(tmp_path, "hungarian", GREEDY_TRAP)))
    g = greedy.decide(snapshot(table), tasks)
    h = optimal.decide(snapshot(table), tasks)
    assert placed(g) == {0: 0, 1: 1} and total(g, table) == 100
    assert placed(h) == {0: 1, 1: 0} and total(h, table) == 190
    assert h.solver == "hungarian" and g.solver == "sequential"
    assert h.counters["rounds"] == 1


def test_placing_more_tasks_beats_a_higher_score(tmp_path: Path) -> None:
    # Node a (4000m) holds the 3000m task 0 or the 1500m task 1, not both (4500m); b (2000m)
    # only task 1.   task 0: a=0 (b infeasible)      task 1: a=100, b=0
    # The count bonus B must win over the 100 points: 0->a, 1->b places both (greedy does too).
    # Slots: a gets min(2 listers, 4000 // 1500 = 2) = 2 slots, so the assignment picks
    # 0->a(slot 0), 1->a(slot 1) (cost -2B - 100 + 0.001 < -2B); applied cheapest first, 1 lands
    # on a, then 0 does not fit a (2500m left) nor b (2000m): only 1 task placed.
    table = cluster([make_node("a").cpu(4000), make_node("b").cpu(2000)])
    tasks = [make_task(0).cpu(3000).build(), make_task(1).cpu(1500).arrival(1).build()]
    scores = {"0:a": 0, "1:a": 100, "1:b": 0}
    greedy = build_scheduler(str(write_profile(tmp_path, "sequential", scores)))
    assert placed(greedy.decide(snapshot(table), tasks)) == {0: 0, 1: 1}
    d = build_scheduler(str(write_profile(tmp_path, "hungarian", scores))).decide(snapshot(table), tasks)
    assert placed(d) == {0: 0, 1: 1}


# --- slots, rounds and statuses ----------------------------------------------------------------


def test_slot_expansion_fills_one_node_up_to_capacity() -> None:
    # One 8000m node, five 2000m tasks: 8000 / 2000 = 4 slots; the fifth does not fit.
    table = cluster([make_node("a").cpu(8000).mem(65536)])
    tasks = [make_task(i).cpu(2000).arrival(i).build() for i in range(5)]
    d = hungarian().decide(snapshot(table), tasks)
    assert sorted(placed(d)) == [0, 1, 2, 3]
    assert set(placed(d).values()) == {0}
    assert d.statuses[4].code == Code.UNSCHEDULABLE


def test_few_slots_per_round_take_more_rounds() -> None:
    # max_slots_per_node=2: a round places at most 2 tasks on the one node, so 4 tasks take
    # 2 rounds, and the third round finds the node full (nothing left to place).
    table = cluster([make_node("a").cpu(8000).mem(65536)])
    tasks = [make_task(i).cpu(2000).arrival(i).build() for i in range(4)]
    d = hungarian(max_slots_per_node=2).decide(snapshot(table), tasks)
    assert sorted(placed(d)) == [0, 1, 2, 3]
    assert d.counters["rounds"] == 2


def test_fractional_gpu_slots() -> None:
    # 2 GPUs, 300m shares: 3 per GPU (900m), so 6 of 7 tasks fit; each GPU never exceeds 1000.
    table = cluster([make_node("g").cpu(64000).mem(65536).gpus(2, "T4")])
    tasks = [make_task(i).cpu(100).mem(100).gpu(1, 300).arrival(i).build() for i in range(7)]
    d = hungarian().decide(snapshot(table), tasks)
    assert len(d.bindings) == 6
    per_gpu = np.zeros(2)
    for b in d.bindings:
        per_gpu[list(b.gpus)] += 300
    assert per_gpu.tolist() == [900, 900]
    assert d.statuses[6].code == Code.UNSCHEDULABLE


def test_tasks_beyond_max_batch_wait() -> None:
    table = cluster([make_node("a").cpu(64000).mem(65536)])
    tasks = [make_task(i).cpu(100).arrival(10 - i).build() for i in range(4)]
    d = hungarian(max_batch=2).decide(snapshot(table), tasks)
    # Queue order is by arrival: 3 (7 s), 2 (8 s) first; 1 and 0 wait for the next cycle.
    assert sorted(placed(d)) == [2, 3]
    assert {d.statuses[i].code for i in (0, 1)} == {Code.WAIT}
    assert d.statuses[0].plugin == "hungarian"


def test_unschedulable_and_unresolvable() -> None:
    table = cluster([make_node("a").cpu(4000).mem(8192), make_node("b").cpu(4000).mem(8192)])
    snap = snapshot(table, allocated=[[3000, 0, 0], [3000, 0, 0]])
    tasks = [
        make_task(0).cpu(2000).build(),  # fits an empty node, not now
        make_task(1).cpu(5000).build(),  # larger than any node
        make_task(2).cpu(500).build(),  # fits
        make_task(3).cpu(100).gpu(1).build(),  # no GPU anywhere: larger than any node
    ]
    d = hungarian().decide(snap, tasks)
    assert list(placed(d)) == [2]
    assert d.statuses[0].code == Code.UNSCHEDULABLE
    assert (d.statuses[1].code, d.statuses[1].plugin) == (Code.UNRESOLVABLE, "NodeResourcesFit")
    assert d.statuses[3].code == Code.UNRESOLVABLE
    assert set(d.statuses) | set(placed(d)) == {0, 1, 2, 3}


def test_higher_priority_wins_a_contended_node() -> None:
    table = cluster([make_node("a").cpu(4000)])
    low = make_task(0).cpu(3000).priority(0).arrival(0).build()
    high = make_task(1).cpu(3000).priority(5).arrival(10).build()
    d = hungarian().decide(snapshot(table, time_s=20), [low, high])
    assert placed(d) == {1: 0}
    assert d.statuses[0].code == Code.UNSCHEDULABLE


def test_older_task_wins_at_equal_priority() -> None:
    # The age bonus: at t=600 the task from t=0 has the full 10 points, the one from t=590
    # only 10 * 10 / 600 = 0.17.
    table = cluster([make_node("a").cpu(4000)])
    young = make_task(0).cpu(3000).arrival(590).build()
    old = make_task(1).cpu(3000).arrival(0).build()
    d = hungarian().decide(snapshot(table, time_s=600), [young, old])
    assert placed(d) == {1: 0}


def test_top_k_one_still_places_everything() -> None:
    # Three 4000m nodes and three 3000m tasks: each task keeps only its best node (the same one
    # for all), so each round places one task and the next round sees that node full.
    table = cluster([make_node(f"n{i}").cpu(4000) for i in range(3)])
    tasks = [make_task(i).cpu(3000).arrival(i).build() for i in range(3)]
    d = hungarian(top_k=1).decide(snapshot(table), tasks)
    assert sorted(placed(d)) == [0, 1, 2]
    assert sorted(placed(d).values()) == [0, 1, 2]
    assert d.counters["rounds"] == 3


def test_same_inputs_same_decision() -> None:
    table = cluster([make_node(f"n{i}").cpu(8000).gpus(2, "T4") for i in range(6)])
    tasks = [
        make_task(i).cpu(1000 + 500 * (i % 3)).gpu(1, 250 * (1 + i % 4)).arrival(i).build()
        for i in range(20)
    ]
    one = build_scheduler("aesp", seed=3).decide(snapshot(table), tasks)
    two = build_scheduler("aesp", seed=3).decide(snapshot(table), tasks)
    assert one.bindings == two.bindings
    assert one.statuses == two.statuses


@pytest.mark.parametrize(
    "bad", [{"max_batch": 0}, {"top_k": 0}, {"max_slots_per_node": 0}, {"max_rounds": 0}]
)
def test_bad_settings(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=">= 1"):
        HungarianSettings(**bad)


def test_unknown_solver_arg_is_an_error() -> None:
    with pytest.raises(TypeError):
        hungarian(batch_size=3)


# --- never over-commits ------------------------------------------------------------------------


def check_safe(table: NodeTable, snap: ClusterSnapshot, tasks: list[Task], d: Decision) -> None:
    """Apply bindings one by one; fail on any over-commit or an unexplained task."""
    by_id = {t.id: t for t in tasks}
    free = table.capacity - snap.allocated
    gpu_free = snap.gpu_free_milli.copy()
    seen: set[int] = set()
    for b in d.bindings:
        assert b.task_id in by_id and b.task_id not in seen
        seen.add(b.task_id)
        req = by_id[b.task_id].request
        assert binding_fits(free[b.node], gpu_free[b.node], req, b.gpus) == ""
        assert len(b.gpus) == req.gpu_count
        free[b.node] -= req.vector()
        for g in b.gpus:
            gpu_free[b.node, g] -= req.gpu_milli
    assert (free >= -1e-6).all()
    assert (gpu_free >= -1e-6).all()
    assert seen | set(d.statuses) == set(by_id)
    assert not seen & set(d.statuses)


node_st = st.tuples(
    st.sampled_from([1000, 2000, 4000, 8000]),
    st.sampled_from([1024, 4096, 16384]),
    st.integers(0, 4),
)
task_st = st.tuples(
    st.sampled_from([0, 250, 500, 1000, 3000]),
    st.sampled_from([0, 512, 2048, 8192]),
    st.sampled_from([(0, 0), (1, 100), (1, 250), (1, 500), (1, 700), (1, 1000), (2, 1000), (4, 1000)]),
    st.integers(0, 2),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.lists(node_st, min_size=1, max_size=5),
    specs=st.lists(task_st, min_size=1, max_size=14),
    max_batch=st.integers(1, 6),
    top_k=st.integers(1, 3),
    slots=st.integers(1, 3),
    scorer=st.sampled_from(["LeastAllocated", "MostAllocated", "GpuFragmentation"]),
)
def test_never_over_commits(
    nodes: list[tuple[int, int, int]],
    specs: list[tuple[int, int, tuple[int, int], int]],
    max_batch: int,
    top_k: int,
    slots: int,
    scorer: str,
) -> None:
    table = cluster([make_node(f"n{i}").cpu(c).mem(m).gpus(g, "T4") for i, (c, m, g) in enumerate(nodes)])
    tasks = [
        make_task(i).cpu(c).mem(m).gpu(gc, gm).priority(p).arrival(i).build()
        for i, (c, m, (gc, gm), p) in enumerate(specs)
    ]
    profile = Profile(
        name="h",
        solver="hungarian",
        solver_args={"max_batch": max_batch, "top_k": top_k, "max_slots_per_node": slots},
        filters=({"name": "NodeUp"}, {"name": "NodeResourcesFit"}),  # type: ignore[arg-type]
        scores=({"name": scorer},),  # type: ignore[arg-type]
    )
    scheduler = FrameworkScheduler(profile)
    # A half-used cluster: GPU 0 of every node has 400m taken.
    alloc = np.zeros((len(table), 3))
    gpu_free = np.where(table.gpu_present, 1000.0, 0.0)
    has_gpu = table.gpu_present[:, 0] if table.gpu_present.shape[1] else np.zeros(len(table), bool)
    gpu_free[has_gpu, 0] = 600.0
    alloc[has_gpu, 2] = 400.0
    snap = snapshot(table, allocated=alloc, gpu_free=gpu_free, time_s=30.0)
    d = scheduler.decide(snap, tasks)
    check_safe(table, snap, tasks, d)
    waiting = [t for t in tasks if d.statuses.get(t.id) and d.statuses[t.id].code == Code.WAIT]
    assert len(waiting) == max(0, len(tasks) - max_batch)


# --- optimum against brute force -----------------------------------------------------------------


def brute_force(scores: dict[str, float], n_tasks: int, n_nodes: int) -> tuple[int, float]:
    """Best (tasks placed, total score) over every assignment of tasks to distinct nodes."""
    from itertools import permutations

    best = (0, 0.0)
    slots = list(range(n_nodes)) + [-1] * n_tasks  # -1: left pending
    for perm in set(permutations(slots, n_tasks)):
        used = [j for j in perm if j >= 0]
        if len(used) != len(set(used)):
            continue
        value = sum(scores.get(f"{i}:n{j}", 0.0) for i, j in enumerate(perm) if j >= 0)
        best = max(best, (len(used), value))
    return best


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    n_tasks=st.integers(1, 4),
    n_nodes=st.integers(1, 3),
    values=st.lists(st.integers(0, 100), min_size=12, max_size=12),
)
def test_hungarian_matches_brute_force_on_small_cases(
    tmp_path: Path, n_tasks: int, n_nodes: int, values: list[int]
) -> None:
    # Each node holds exactly one task (3000m of 4000m), so an assignment is a matching; the
    # solver must place as many tasks as possible and, among those, reach the best total score.
    scores = {f"{i}:n{j}": float(values[i * 3 + j]) for i in range(n_tasks) for j in range(n_nodes)}
    table = cluster([make_node(f"n{j}").cpu(4000) for j in range(n_nodes)])
    tasks = [make_task(i).cpu(3000).arrival(0).build() for i in range(n_tasks)]
    scheduler = build_scheduler(str(write_profile(tmp_path, "hungarian", scores)))
    decision = scheduler.decide(snapshot(table), tasks)
    got = (len(decision.bindings), sum(scores[f"{b.task_id}:n{b.node}"] for b in decision.bindings))
    assert got[0] == brute_force(scores, n_tasks, n_nodes)[0]
    assert got[1] == pytest.approx(brute_force(scores, n_tasks, n_nodes)[1])
