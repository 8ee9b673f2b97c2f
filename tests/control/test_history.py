"""Forecasting reads its history from the metric store the agents' reports land in."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.control.history import panel_from_store
from aesp.forecast.baselines import EWMA
from aesp.perception import AgentReport, MetricSample, MetricStore


def report(node: str, seq: int, time_s: float, cpu: float) -> AgentReport:
    return AgentReport(agent_id=node, node=node, seq=seq, time_s=time_s, metrics=MetricSample(cpu_pct=cpu))


def test_reports_become_a_regular_panel() -> None:
    # Node a reports every 30 s: cells of 60 s hold two samples each, so cell 0 is the mean of
    # 10 and 20 = 15, cell 1 of 30 and 40 = 35. Node b reports only in the first and third
    # minutes: its middle cell is filled forward (value 50) and marked unobserved.
    store = MetricStore()
    store.insert_reports(report("a", i, 30.0 * i, 10.0 * (i + 1)) for i in range(6))
    store.insert_reports([report("b", 0, 10.0, 50.0), report("b", 1, 130.0, 70.0)])
    panel = panel_from_store(store, ["a", "b"], "cpu_pct", step_s=60)
    assert panel.series_ids == ("a", "b")
    np.testing.assert_allclose(panel.values[0], [15.0, 35.0, 55.0])
    np.testing.assert_allclose(panel.values[1], [50.0, 50.0, 70.0])
    assert panel.observed[1].tolist() == [True, False, True]


def test_a_forecaster_fits_on_store_history() -> None:
    store = MetricStore()
    store.insert_reports(report("a", i, 60.0 * i, 50.0 + 10.0 * np.sin(i / 5.0)) for i in range(120))
    panel = panel_from_store(store, ["a"], step_s=60)
    model = EWMA()
    model.fit(panel, horizon_steps=15)
    forecast = model.predict(panel, horizon_steps=15)
    assert np.isfinite(forecast.point).all()
    assert 35.0 <= float(forecast.point[0, -1, 0]) <= 65.0


def test_nodes_without_history_are_dropped_or_refused() -> None:
    store = MetricStore()
    store.insert_reports(report("a", i, 60.0 * i, 10.0) for i in range(10))
    panel = panel_from_store(store, ["a", "ghost"])
    assert panel.series_ids == ("a",)
    with pytest.raises(ValueError, match="no cpu_pct history"):
        panel_from_store(store, ["ghost"])
