"""The report schema accepts good payloads and rejects bad ones with the field named."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pydantic import ValidationError

from aesp.perception.schema import (
    METRIC_NAMES,
    SCHEMA_VERSION,
    AgentReport,
    MetricSample,
    change_coordinates,
)


def _report(**metrics: float) -> AgentReport:
    return AgentReport(
        agent_id="a1", node="n1", seq=7, time_s=60.0, metrics=MetricSample(**metrics)
    )


def test_twelve_metrics_round_trip_through_json() -> None:
    assert len(METRIC_NAMES) >= 12
    report = _report(cpu_pct=12.5, net_rx_bytes_per_s=1e6, temperature_c=55.0)
    again = AgentReport.from_json_bytes(report.to_json_bytes())
    assert again == report
    assert again.report_id == "a1:7"
    assert again.schema_version == SCHEMA_VERSION


def test_vector_round_trip_keeps_none_as_nan() -> None:
    sample = MetricSample(cpu_pct=50.0, gpu_pct=None)
    v = sample.vector()
    assert v[0] == 50.0 and np.isnan(v[METRIC_NAMES.index("gpu_pct")])
    assert MetricSample.from_vector(v) == sample


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cpu_pct", float("nan")),
        ("cpu_pct", 100.5),
        ("mem_pct", -1.0),
        ("net_tx_bytes_per_s", float("inf")),
        ("temperature_c", 500.0),
        ("latency_to_aggregator_ms", -3.0),
    ],
)
def test_rejects_nan_and_out_of_range(field: str, value: float) -> None:
    with pytest.raises(ValidationError, match=field):
        MetricSample(**{field: value})


def test_rejects_unknown_fields_and_versions() -> None:
    payload = json.loads(_report(cpu_pct=1.0).to_json_bytes())
    with pytest.raises(ValidationError, match="schema_version"):
        AgentReport.model_validate({**payload, "schema_version": 2})
    with pytest.raises(ValidationError, match="bogus"):
        AgentReport.model_validate({**payload, "bogus": 1})
    with pytest.raises(ValidationError, match="seq"):
        AgentReport.model_validate({**payload, "seq": -1})
    with pytest.raises(ValidationError, match="cpu_pct"):
        AgentReport.from_json_bytes(
            b'{"agent_id":"a","node":"n","seq":0,"time_s":0,"metrics":{"cpu_pct":"NaN"}}'
        )


def test_reports_are_immutable() -> None:
    report = _report(cpu_pct=1.0)
    with pytest.raises(ValidationError):
        report.seq = 3  # type: ignore[misc]


def test_change_coordinates_scale_and_log_rates() -> None:
    values = np.full(len(METRIC_NAMES), np.nan)
    values[METRIC_NAMES.index("cpu_pct")] = 50.0  # 50 / 100
    values[METRIC_NAMES.index("net_rx_bytes_per_s")] = 99e6  # log10(1 + 99) / 2 = 1.0
    c = change_coordinates(values)
    assert c[METRIC_NAMES.index("cpu_pct")] == pytest.approx(0.5)
    assert c[METRIC_NAMES.index("net_rx_bytes_per_s")] == pytest.approx(1.0)
    assert np.isnan(c[METRIC_NAMES.index("gpu_pct")])
