"""Node usage read from Prometheus through PromQL: an alternative to agent reports.

``aesp agent`` exports each metric as a gauge ``aesp_node_<metric>{node="..."}`` (e.g.
``aesp_node_cpu_pct``); :class:`PrometheusSource` runs one instant query per metric against
``/api/v1/query`` and assembles a :class:`MetricSample` per node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import httpx

from aesp.perception.schema import METRIC_NAMES, METRIC_SPECS, MetricSample

GAUGE_PREFIX = "aesp_node_"


def gauge_name(metric: str) -> str:
    """The Prometheus gauge an agent exports for a schema metric."""
    return f"{GAUGE_PREFIX}{metric}"


class PromQLError(RuntimeError):
    """Prometheus answered with an error or something that is not a query result."""


@dataclass
class PromQLClient:
    """A small client for Prometheus' HTTP query API. Units: timeout_s seconds."""

    base_url: str
    timeout_s: float = 5.0
    transport: httpx.BaseTransport | None = None

    def query(self, expr: str) -> list[tuple[dict[str, str], float, float]]:
        """An instant query; one ``(labels, time_s, value)`` per series of a vector result.

        Raises:
            PromQLError: HTTP failure, a non-success status, or a non-vector result.
        """
        try:
            with httpx.Client(timeout=self.timeout_s, transport=self.transport) as client:
                resp = client.get(f"{self.base_url.rstrip('/')}/api/v1/query", params={"query": expr})
            body = resp.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise PromQLError(f"query {expr!r} failed: {exc}") from None
        if body.get("status") != "success":
            raise PromQLError(f"query {expr!r}: {body.get('error', resp.status_code)}")
        data = body.get("data", {})
        if data.get("resultType") != "vector":
            raise PromQLError(f"query {expr!r} returned {data.get('resultType')}, not a vector")
        return [
            (dict(r["metric"]), float(r["value"][0]), float(r["value"][1]))
            for r in data.get("result", [])
        ]


@dataclass
class PrometheusSource:
    """Latest node metrics from Prometheus, in the control plane's ``MetricsSource`` shape."""

    client: PromQLClient
    node_label: str = "node"
    metrics: tuple[str, ...] = field(default=METRIC_NAMES)

    def __call__(self) -> dict[str, tuple[float, MetricSample]]:
        """Per node: (newest sample time, metrics); metrics Prometheus lacks stay None.

        Raises:
            PromQLError: Prometheus unreachable or answering an error.
        """
        values: dict[str, dict[str, float]] = {}
        times: dict[str, float] = {}
        specs = {s.name: s for s in METRIC_SPECS}
        for metric in self.metrics:
            for labels, t, v in self.client.query(gauge_name(metric)):
                node = labels.get(self.node_label)
                spec = specs[metric]
                if node is None or not math.isfinite(v) or not spec.lo <= v <= spec.hi:
                    continue
                values.setdefault(node, {})[metric] = v
                times[node] = max(times.get(node, 0.0), t)
        return {n: (times[n], MetricSample(**vals)) for n, vals in values.items()}
