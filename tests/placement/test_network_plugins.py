"""Edge network priority and cross-region cost: the formulas as tables, the plugins on topologies."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from aesp.core import Link, NodeTable, Topology
from aesp.placement import CycleState
from aesp.placement.framework.registry import create
from aesp.placement.plugins.network import (
    CrossRegionCost,
    NetworkPriority,
    cross_region_cost,
    network_priority,
    reverse_normalise,
    stream_mbps,
)
from aesp.testing import cluster, make_node, make_site, make_task, snapshot

MakeState = Callable[..., CycleState]

# (latency ms, bandwidth cost Mbps, score) with 0.7 * (1 - lat / 100) + 0.3 * (1 - bw / 10).
PRIORITY = [
    (0, 0, 100.0),  # 0.7 * 1 + 0.3 * 1 = 1
    (50, 5, 50.0),  # 0.7 * 0.5 + 0.3 * 0.5 = 0.5
    (100, 10, 0.0),  # 0 + 0
    (200, 20, 0.0),  # both terms clamped at 0
    (50, 0, 65.0),  # 0.35 + 0.3
    (0, 5, 85.0),  # 0.7 + 0.15
    (0, 20, 70.0),  # 0.7 + 0 (bandwidth term clamped)
    (200, 0, 30.0),  # 0 (latency term clamped) + 0.3
    (100, 0, 30.0),  # 0 + 0.3
    (0, 10, 70.0),  # 0.7 + 0
    (25, 2.5, 75.0),  # 0.7 * 0.75 + 0.3 * 0.75
]


def test_network_priority_table() -> None:
    lat = np.array([r[0] for r in PRIORITY], np.float64)
    bw = np.array([r[1] for r in PRIORITY], np.float64)
    np.testing.assert_allclose(network_priority(lat, bw), [r[2] for r in PRIORITY], atol=1e-9)


# (weights and references, latency, bandwidth cost, score)
CUSTOM = [
    # Equal weights: (1 * 0.5 + 1 * 0) / 2 = 0.25.
    ({"w_latency": 1, "w_bandwidth": 1}, 50, 10, 25.0),
    # Weights are normalised: 7 and 3 behave as 0.7 and 0.3.
    ({"w_latency": 7, "w_bandwidth": 3}, 50, 5, 50.0),
    # Latency only: 1 - 30 / 100 = 0.7.
    ({"w_latency": 1, "w_bandwidth": 0}, 30, 50, 70.0),
    # Bandwidth only: 1 - 4 / 10 = 0.6.
    ({"w_latency": 0, "w_bandwidth": 1}, 500, 4, 60.0),
    # Reference latency 200 ms: 0.7 * (1 - 100 / 200) + 0.3 * 1 = 0.65.
    ({"ref_latency_ms": 200}, 100, 0, 65.0),
    # Reference bandwidth 20 Mbps: 0.7 * 1 + 0.3 * (1 - 10 / 20) = 0.85.
    ({"ref_bandwidth_mbps": 20}, 0, 10, 85.0),
]


@pytest.mark.parametrize(("kwargs", "lat", "bw", "want"), CUSTOM)
def test_network_priority_custom_weights(
    kwargs: dict[str, float], lat: float, bw: float, want: float
) -> None:
    got = network_priority(np.array([lat], np.float64), np.array([bw], np.float64), **kwargs)
    assert got[0] == pytest.approx(want)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"w_latency": -0.1},
        {"w_bandwidth": -1},
        {"w_latency": 0, "w_bandwidth": 0},
        {"ref_latency_ms": 0},
        {"ref_bandwidth_mbps": -5},
    ],
)
def test_network_priority_bad_args(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        NetworkPriority(**kwargs)
    with pytest.raises(ValueError):
        create("NetworkPriority", kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [{"alpha": -1}, {"beta": -0.1}, {"gamma": -2}, {"lambda_ms": -1}, {"compliance_usd_per_gb": -1}],
)
def test_cross_region_cost_bad_args(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="non-negative"):
        CrossRegionCost(**kwargs)


def test_unknown_plugin_argument() -> None:
    with pytest.raises(ValueError, match="bad arguments for plugin 'NetworkPriority'"):
        create("NetworkPriority", {"w_latence": 1})


def test_stream_mbps() -> None:
    # 10 GB over 8000 s of work: 10 * 8000 / 8000 = 10 Mbps.
    assert stream_mbps(make_task(0).origin("s", 10).work(8000).build()) == 10.0
    # Work below 1 s counts as 1 s: 0.001 GB * 8000 / 1 = 8 Mbps.
    assert stream_mbps(make_task(0).origin("s", 0.001).work(0.1).build()) == pytest.approx(8.0)
    assert stream_mbps(make_task(0).build()) == 0.0


# --- the plugins on topologies -----------------------------------------------------------------


def two_sites() -> NodeTable:
    topo = Topology.build([make_site("s0"), make_site("s1")], [Link("s0", "s1", 50, 1000)])
    return cluster([make_node("near").site("s0"), make_node("far").site("s1")], topo)


def test_network_priority_plugin(make_state: MakeState) -> None:
    state = make_state(snapshot(two_sites()))
    # Origin s0, 5 GB over 8000 s: stream 5 * 8000 / 8000 = 5 Mbps.
    task = make_task(0).origin("s0", 5).work(8000).build()
    got = NetworkPriority().score(state, task, np.array([0, 1]))
    # near: intra-site RTT 0.5 ms, no crossing: 0.7 * (1 - 0.005) + 0.3 = 0.9965
    # far:  50 ms, 5 Mbps crossing:             0.7 * 0.5 + 0.3 * 0.5 = 0.5
    np.testing.assert_allclose(got, [99.65, 50.0])
    # Candidates in any order, any subset.
    np.testing.assert_allclose(NetworkPriority().score(state, task, np.array([1])), [50.0])


def test_tasks_without_data_origin_score_100(make_state: MakeState) -> None:
    state = make_state(snapshot(two_sites()))
    task = make_task(0).build()
    for plugin in (NetworkPriority(), CrossRegionCost()):
        np.testing.assert_array_equal(plugin.score(state, task, np.array([0, 1])), [100.0, 100.0])


def three_sites() -> NodeTable:
    """A (EU, region r1), B (EU, region r1, another zone), C (US, region r2)."""
    sites = [
        make_site("A", "EU", region="r1"),
        make_site("B", "EU", region="r1"),
        make_site("C", "US", region="r2"),
    ]
    links = [Link("A", "B", 2, 1000, usd_per_gb=0.01), Link("A", "C", 80, 1000, usd_per_gb=0.09)]
    topo = Topology.build(sites, links)
    return cluster([make_node("a").site("A"), make_node("b").site("B"), make_node("c").site("C")], topo)


def test_cross_region_cost_worked_example(make_state: MakeState) -> None:
    table = three_sites()
    task = make_task(0).origin("A", 10).build()
    # alpha 0.01/ms, beta 1/USD, gamma 1, lambda 50 ms, compliance 0.05 USD/GB:
    #   A: 0.01 * (0.5 + 0)  + 1 * (0          + 0)              = 0.005
    #   B: 0.01 * (2 + 0)    + 1 * (10 * 0.01 + 0)               = 0.02 + 0.1 = 0.12
    #   C: 0.01 * (80 + 50)  + 1 * (10 * 0.09 + 1 * 10 * 0.05)   = 1.3 + 0.9 + 0.5 = 2.7
    costs = CrossRegionCost().costs(snapshot(table), task, np.array([0, 1, 2]))
    np.testing.assert_allclose(costs, [0.005, 0.12, 2.7])
    # Custom weights: alpha 0.1, beta 2, gamma 3, lambda 10:
    #   C: 0.1 * (80 + 10) + 2 * (0.9 + 3 * 0.5) = 9 + 4.8 = 13.8
    custom = CrossRegionCost(alpha=0.1, beta=2, gamma=3, lambda_ms=10)
    assert custom.costs(snapshot(table), task, np.array([2]))[0] == pytest.approx(13.8)
    scores = CrossRegionCost().score(make_state(snapshot(table)), task, np.array([0, 1, 2]))
    assert scores[2] == pytest.approx(0.0)
    assert scores[0] > scores[1] > scores[2]


def test_cross_region_scores_reverse_normalised(make_state: MakeState) -> None:
    table = three_sites()
    task = make_task(0).origin("A", 10).build()
    scores = CrossRegionCost().score(make_state(snapshot(table)), task, np.array([0, 1, 2]))
    # Cheapest 100, dearest 0: B = (2.7 - 0.12) / (2.7 - 0.005) * 100 = 95.73
    np.testing.assert_allclose(scores, [100.0, 100 * 2.58 / 2.695, 0.0])


def test_cross_region_cost_formula() -> None:
    # alpha * (RTT + lambda) + beta * (transfer + gamma * compliance)
    got = cross_region_cost(
        np.array([10.0, 0.0]), np.array([1.0, 0.0]), np.array([2.0, 0.0]),
        alpha=0.5, lam_ms=np.array([20.0, 0.0]), beta=2.0, gamma=3.0,
    )
    # 0.5 * 30 + 2 * (1 + 6) = 15 + 14 = 29; all zero -> 0
    np.testing.assert_allclose(got, [29.0, 0.0])


# (costs, reverse-normalised scores)
REVERSE = [
    ([0.0, 5.0, 10.0], [100.0, 50.0, 0.0]),  # cheapest 100, dearest 0, linear between
    ([-10.0, 0.0, 10.0], [100.0, 50.0, 0.0]),
    ([0.0, 0.0], [100.0, 100.0]),
]


@pytest.mark.parametrize(("costs", "want"), REVERSE)
def test_reverse_normalise(costs: list[float], want: list[float]) -> None:
    np.testing.assert_allclose(reverse_normalise(np.array(costs, np.float64)), want)


AWAY_FROM_ZERO = [
    ([2.0, 4.0, 6.0], [100.0, 50.0, 0.0]),  # (6 - c) / (6 - 2)
    ([5.0, 5.0], [100.0, 100.0]),  # all equal: 100
    ([3.0], [100.0]),  # one candidate: 100
    ([-6.0, -4.0, -2.0], [100.0, 50.0, 0.0]),  # (-2 - c) / (-2 - -6)
]


@pytest.mark.parametrize(("costs", "want"), AWAY_FROM_ZERO)
def test_reverse_normalise_away_from_zero(costs: list[float], want: list[float]) -> None:
    np.testing.assert_allclose(reverse_normalise(np.array(costs, np.float64)), want)


def test_reverse_normalise_empty() -> None:
    assert reverse_normalise(np.zeros(0)).shape == (0,)
