"""LoadForecast: the trend forecaster, the resampled history and the score, with worked arithmetic.

Shared cluster for the plugin cases: nodes ``a`` and ``b`` on site ``s1`` (region ``r1``), node
``c`` on site ``s2`` (region ``r2``), all with 10 cores.
"""

from __future__ import annotations

import numpy as np
import pytest

from aesp.core import Link, NodeTable, Topology
from aesp.core.resources import FloatArray
from aesp.placement import CycleState, load_profile
from aesp.placement.framework.registry import create
from aesp.placement.plugins.forecast import (
    LoadForecast,
    UsageHistory,
    forecast_peak,
    forecast_score,
    trend_forecast,
)
from aesp.testing import cluster, make_node, make_site, make_task, snapshot

TASK = make_task(0).cpu(1000).mem(1024).build()
ALL = np.array([0, 1, 2])


def table() -> NodeTable:
    topo = Topology.build(
        [make_site("s1", region="r1"), make_site("s2", region="r2")], [Link("s1", "s2", 10, 1000)]
    )
    nodes = [make_node(n).cpu(10000).mem(10000).site(s) for n, s in (("a", "s1"), ("b", "s1"),
                                                                    ("c", "s2"))]  # fmt: skip
    return cluster(nodes, topo)


def state_at(time_s: float, cpu_used: list[float]) -> CycleState:
    usage = [[u, 0, 0] for u in cpu_used]
    snap = snapshot(table(), allocated=usage, usage=usage, time_s=time_s)
    return CycleState(snap, np.random.default_rng(0))


def feed(plugin: LoadForecast, minutes: int, cpu_used: list[float]) -> FloatArray:
    scores = np.zeros(3)
    for m in range(minutes):
        scores = plugin.score(state_at(60.0 * m, cpu_used), TASK, ALL)
    return scores


def test_trend_forecast_worked_example() -> None:
    # values 0.1 0.2 0.3 0.4, window 4: x = -1.5 -0.5 0.5 1.5, sum x^2 = 5,
    # slope = (-0.15 - 0.1 + 0.15 + 0.6) / 5 = 0.1.
    # alpha 1: level = 0.4 -> 0.5, 0.6, 0.7.
    # alpha 0.5: level 0.1, 0.15, 0.225, 0.3125 -> 0.4125, 0.5125.
    y = np.array([[0.1, 0.2, 0.3, 0.4]])
    np.testing.assert_allclose(trend_forecast(y, 3, alpha=1.0, window=4), [[0.5, 0.6, 0.7]])
    np.testing.assert_allclose(trend_forecast(y, 2, alpha=0.5, window=4), [[0.4125, 0.5125]])
    # the peak is the horizon's maximum; a falling series peaks at its first step:
    # 0.4 0.3 0.2 0.1, alpha 0.5 (default): level .4, .35, .275, .1875; slope -0.1 -> .0875
    np.testing.assert_allclose(forecast_peak(y[:, ::-1].copy(), 60, 3, trend_window=4), [0.0875])


@pytest.mark.parametrize(
    ("node", "region", "weight", "expected"),
    [
        # 100 * (1 - (0.5 * 0.5 + 0.5 * 0.9)) = 100 * (1 - 0.7) = 30
        (0.5, 0.9, 0.5, 30.0),
        # node clipped to 1: 100 * (1 - (0.5 * 1 + 0.5 * 0)) = 50
        (1.2, 0.0, 0.5, 50.0),
        # negative forecasts clip to 0: 100
        (-0.3, -0.1, 0.5, 100.0),
        # node only: 100 * (1 - 0.25) = 75
        (0.25, 0.9, 0.0, 75.0),
    ],
)
def test_forecast_score_table(node: float, region: float, weight: float, expected: float) -> None:
    got = forecast_score(np.array([node]), np.array([region]), weight)
    np.testing.assert_allclose(got, [expected])


def test_history_resamples_to_the_step_and_forward_fills() -> None:
    # t=0 -> cell 0; t=30 overwrites cell 0; t=150 is cell 2, cell 1 forward-filled from cell 0
    h = UsageHistory(step_s=60, max_steps=10)
    for t, v in ((0.0, 0.1), (30.0, 0.2), (150.0, 0.4)):
        h.add(t, np.array([v]))
    np.testing.assert_allclose(h.values, [[0.2, 0.2, 0.4]])
    h.add(0.0, np.array([0.9]))  # time went backwards: a new run starts afresh
    np.testing.assert_allclose(h.values, [[0.9]])


def test_history_keeps_only_the_last_max_steps() -> None:
    h = UsageHistory(step_s=60, max_steps=3)
    for m in range(5):
        h.add(60.0 * m, np.array([float(m)]))
    np.testing.assert_allclose(h.values, [[2.0, 3.0, 4.0]])


def test_neutral_until_enough_history() -> None:
    # 4 one-minute samples < the 5-sample minimum: every candidate gets 100
    plugin = LoadForecast()
    np.testing.assert_allclose(feed(plugin, 4, [5000, 1000, 9000]), [100, 100, 100])
    assert plugin.skips == 4


def test_scores_blend_node_and_region_forecasts() -> None:
    # constant usage: slope 0 and the EWMA level equals the value, so the peak is the value.
    #   nodes a .5, b .1, c .9; regions r1 (5000 + 1000) / 20000 = .3, r2 .9
    #   a: 100 * (1 - (.5 * .5 + .5 * .3)) = 60;  b: 100 * (1 - (.05 + .15)) = 80
    #   c: 100 * (1 - (.45 + .45)) = 10
    plugin = LoadForecast()
    np.testing.assert_allclose(feed(plugin, 5, [5000, 1000, 9000]), [60, 80, 10])
    # a candidate subset keeps its order
    again = plugin.score(state_at(240.0, [5000, 1000, 9000]), TASK, np.array([2, 0]))
    np.testing.assert_allclose(again, [10, 60])


def test_a_rising_node_scores_below_a_flat_one_at_equal_usage() -> None:
    # a climbs 0 -> 50 % over 5 minutes, b stays at 50 %: a's trend is forecast to exceed 50 %
    plugin = LoadForecast(region_weight=0.0)
    scores = np.zeros(3)
    for m in range(6):
        scores = plugin.score(state_at(60.0 * m, [1000.0 * m, 5000, 0]), TASK, ALL)
    assert scores[0] < scores[1] < scores[2]


def test_failing_forecaster_skips() -> None:
    plugin = LoadForecast(model_path="/nonexistent/model.npz")
    np.testing.assert_allclose(feed(plugin, 6, [5000, 1000, 9000]), [100, 100, 100])
    assert plugin.skips == 6


@pytest.mark.parametrize("model", ["ewma", "seasonal_naive"])
def test_forecast_baselines_from_aesp_forecast(model: str) -> None:
    # constant series: every baseline forecasts the constant -> same scores as the trend case
    plugin = LoadForecast(model=model)
    np.testing.assert_allclose(feed(plugin, 5, [5000, 1000, 9000]), [60, 80, 10])


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown model"):
        create("LoadForecast", {"model": "oracle"})
    with pytest.raises(ValueError, match="region_weight"):
        LoadForecast(region_weight=1.5)


def test_aesp_forecast_profile_is_aesp_plus_load_forecast() -> None:
    base, fc = load_profile("aesp"), load_profile("aesp-forecast")
    assert fc.scores[:-1] == base.scores and fc.filters == base.filters
    assert fc.solver == base.solver and fc.solver_args == base.solver_args
    assert fc.scores[-1].name == "LoadForecast" and fc.scores[-1].weight == 1
