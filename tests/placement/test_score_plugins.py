"""Table tests for the score plugins, each with its arithmetic worked in a comment.

Shared cluster (weights cpu 1, mem 1 unless a case says otherwise), incoming task 1000m / 2000 MiB:

    node  capacity (cpu, mem)  allocated before   requested incl. task
    a     4000, 10000          2000, 3000         3000, 5000
    b     6000, 10000          2000, 3000         3000, 5000
    c     4000, 10000          4000, 3000         5000, 5000   (CPU over capacity)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from aesp.placement import CycleState
from aesp.placement.framework.registry import create
from aesp.placement.plugins.loadaware import least_used
from aesp.placement.plugins.noderesources import (
    balanced_allocation,
    best_fit,
    least_allocated,
    most_allocated,
)
from aesp.testing import cluster, make_node, make_task, snapshot

MakeState = Callable[..., CycleState]
TASK = make_task(0).cpu(1000).mem(2000).build()
ALL = np.array([0, 1, 2])


@pytest.fixture
def abc_state(make_state: MakeState):  # type: ignore[no-untyped-def]
    table = cluster([
        make_node("a").cpu(4000).mem(10000),
        make_node("b").cpu(6000).mem(10000),
        make_node("c").cpu(4000).mem(10000),
    ])
    alloc = [[2000, 3000, 0], [2000, 3000, 0], [4000, 3000, 0]]
    return make_state(snapshot(table, allocated=alloc))


@pytest.mark.parametrize(
    ("plugin", "expected"),
    [
        # LeastAllocated = mean_r (cap - req) * 100 / cap
        #   a: ((4000-3000)/4000*100 + (10000-5000)/10000*100) / 2 = (25 + 50) / 2 = 37.5
        #   b: ((6000-3000)/6000*100 + 50) / 2 = (50 + 50) / 2 = 50
        #   c: CPU requested beyond capacity scores 0: (0 + 50) / 2 = 25
        ("LeastAllocated", [37.5, 50.0, 25.0]),
        # MostAllocated = mean_r req * 100 / cap, 0 for a resource beyond capacity
        #   a: (3000/4000*100 + 5000/10000*100) / 2 = (75 + 50) / 2 = 62.5
        #   b: (50 + 50) / 2 = 50
        #   c: (0 + 50) / 2 = 25
        ("MostAllocated", [62.5, 50.0, 25.0]),
        # BalancedAllocation = (1 - std(min(req/cap, 1))) * 100, population std
        #   a: fractions .75, .5 -> mean .625, std .125 -> 87.5
        #   b: .5, .5 -> std 0 -> 100
        #   c: min(1.25, 1) = 1, .5 -> std .25 -> 75
        ("BalancedAllocation", [87.5, 100.0, 75.0]),
        # BestFit = 100 * (1 - mean_r clip((cap - req) / cap, 0, 1)) over requested resources
        #   a: left .25, .5 -> mean .375 -> 62.5
        #   b: left .5, .5 -> 50
        #   c: left clip(-.25)=0, .5 -> .25 -> 75
        ("BestFit", [62.5, 50.0, 75.0]),
        # FirstFit = 100 * (1 - index / N), N = 3: 100, 66.67, 33.33
        ("FirstFit", [100.0, 200 / 3, 100 / 3]),
    ],
)
def test_allocation_scores(plugin: str, expected: list[float], abc_state) -> None:  # type: ignore[no-untyped-def]
    got = create(plugin).score(abc_state, TASK, ALL)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_scores_on_a_candidate_subset(abc_state) -> None:  # type: ignore[no-untyped-def]
    # Only nodes 2 and 0, in that order: each score belongs to its candidate.
    cand = np.array([2, 0])
    np.testing.assert_allclose(create("LeastAllocated").score(abc_state, TASK, cand), [25.0, 37.5])
    np.testing.assert_allclose(create("FirstFit").score(abc_state, TASK, cand), [100 / 3, 100.0])


def test_least_allocated_with_gpu_weight_skips_nodes_without_gpus(make_state: MakeState) -> None:
    # weights cpu 1, mem 1, gpu 2; task 1000m / 2000 MiB / 1 x 500 milli-GPU
    #   g (4000, 10000, 2 GPUs = 2000): free fractions .75, .8, .75 -> (75 + 80 + 2*75) / 4 = 76.25
    #   p (4000, 10000, no GPU):       GPU skipped -> (75 + 80) / 2 = 77.5
    table = cluster([make_node("g").cpu(4000).mem(10000).gpus(2), make_node("p").cpu(4000).mem(10000)])
    task = make_task().cpu(1000).mem(2000).gpu(1, 500).build()
    plugin = create("LeastAllocated", {"resources": {"cpu_milli": 1, "mem_mib": 1, "gpu_milli": 2}})
    got = plugin.score(make_state(snapshot(table)), task, np.array([0, 1]))
    np.testing.assert_allclose(got, [76.25, 77.5])


def test_best_fit_ignores_resources_the_task_does_not_request(make_state: MakeState) -> None:
    # CPU-only task 2000m / 2000 MiB on an 8-GPU node and a CPU node of the same CPU and memory:
    # the GPU column is ignored, so both score 100 * (1 - (.5 + .5) / 2) = 50.
    table = cluster([make_node("g").cpu(4000).mem(4000).gpus(8), make_node("c").cpu(4000).mem(4000)])
    task = make_task().cpu(2000).mem(2000).build()
    got = create("BestFit").score(make_state(snapshot(table)), task, np.array([0, 1]))
    np.testing.assert_allclose(got, [50.0, 50.0])


def test_pure_score_functions_directly() -> None:
    cap = np.array([[4000.0, 10000.0, 0.0]])
    req = np.array([[3000.0, 5000.0, 0.0]])
    w = np.array([1.0, 1.0, 0.0])
    assert least_allocated(cap, req, w)[0] == 37.5
    assert most_allocated(cap, req, w)[0] == 62.5
    assert balanced_allocation(cap, req, w)[0] == 87.5
    assert best_fit(cap, req, np.array([1.0, 1.0, 0.0]))[0] == 62.5
    # least_used on estimated usage: same arithmetic as LeastAllocated
    assert least_used(cap, req, w)[0] == 37.5
    # A node with no weighted resource at all scores 0 rather than dividing by zero.
    assert least_allocated(cap, req, np.array([0.0, 0.0, 1.0]))[0] == 0.0


def test_load_aware_estimate(make_state: MakeState) -> None:
    # Estimated usage = measured + (assumed this cycle + incoming) * (85 % CPU, 70 % memory).
    # Score = mean over cpu, mem of (cap - est) * 100 / cap.
    #   node 0: usage (1000, 2000); task (1000, 2000):
    #     est cpu 1000 + .85*1000 = 1850 -> (4000-1850)/4000 = 53.75
    #     est mem 2000 + .70*2000 = 3400 -> (10000-3400)/10000 = 66
    #     score (53.75 + 66) / 2 = 59.875
    #   node 1: same usage, but a 1000m / 1000 MiB task was assumed earlier in the cycle:
    #     est cpu 1000 + .85*(1000+1000) = 2700 -> 32.5
    #     est mem 2000 + .70*(1000+2000) = 4100 -> 59
    #     score (32.5 + 59) / 2 = 45.75
    table = cluster([make_node("a").cpu(4000).mem(10000), make_node("b").cpu(4000).mem(10000)])
    snap = snapshot(table, usage=[[1000, 2000, 0], [1000, 2000, 0]])
    state = make_state(snap)
    state.assume(make_task(9).cpu(1000).mem(1000).build(), 1)
    got = create("LoadAware").score(state, TASK, np.array([0, 1]))
    np.testing.assert_allclose(got, [59.875, 45.75])


def test_load_aware_estimate_args(make_state: MakeState) -> None:
    # With estimates of 100 % and only the CPU weighted: (4000 - 1000 - 1000) / 4000 = 50.
    table = cluster([make_node("a").cpu(4000).mem(10000)])
    snap = snapshot(table, usage=[[1000, 2000, 0]])
    plugin = create(
        "LoadAware",
        {"estimate_pct": {"cpu_milli": 100, "mem_mib": 100}, "weights": {"cpu_milli": 1}},
    )
    np.testing.assert_allclose(plugin.score(make_state(snap), TASK, np.array([0])), [50.0])


def test_unknown_resource_in_args_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown resources"):
        create("LeastAllocated", {"resources": {"disk": 1}})
    with pytest.raises(ValueError, match="unknown resources"):
        create("LoadAware", {"weights": {"disk": 1}})


def test_random_score_is_seeded(make_state: MakeState) -> None:
    table = cluster([make_node(f"n{i}") for i in range(6)])
    cand = np.arange(6)
    one = create("RandomScore").score(make_state(snapshot(table), seed=3), TASK, cand)
    two = create("RandomScore").score(make_state(snapshot(table), seed=3), TASK, cand)
    other = create("RandomScore").score(make_state(snapshot(table), seed=4), TASK, cand)
    np.testing.assert_array_equal(one, two)
    assert not np.array_equal(one, other)
    assert ((one >= 0) & (one < 100)).all()
