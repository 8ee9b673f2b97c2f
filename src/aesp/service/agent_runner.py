"""``aesp agent`` on a real host: perception's Agent with an HTTP transport and a /metrics page.

The agent logic (adaptive reporting, buffering while the control plane is unreachable, delivery
in order on reconnect) is :class:`aesp.perception.agent.Agent`; this module only supplies the
host collector, an HTTP transport to ``aesp serve`` and a Prometheus exporter.
"""

from __future__ import annotations

import logging
import platform
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from urllib.parse import urlsplit

import httpx
import psutil
from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server

from aesp.perception.adaptive import Adaptive
from aesp.perception.agent import Agent, AgentStats
from aesp.perception.collectors import Collector, HostCollector, tcp_connect_rtt_ms
from aesp.perception.schema import METRIC_NAMES, AgentReport, MetricSample
from aesp.service.promql import gauge_name

log = logging.getLogger("aesp.agent")
_PERMANENT_REJECTIONS = frozenset({400, 403, 413, 422})
"""Answers that no retry can change: the report is dropped (and counted) instead of blocking."""


@dataclass(frozen=True)
class AgentConfig:
    """Where and how the agent reports. Units: seconds for ``*_s``."""

    server: str
    token: str
    node: str
    agent_id: str
    site: str = "default"
    tick_s: float = 5.0
    steady_s: float = 30.0
    fast_s: float = 5.0
    buffer: int = 720
    metrics_host: str = "0.0.0.0"
    metrics_port: int = 9101
    """0 disables the /metrics page."""
    register: bool = True
    timeout_s: float = 5.0
    verify: bool | str = True
    """TLS verification: True, False, or a CA bundle path."""


class HttpTransport:
    """Posts one report per request to ``/v1/reports``; True when the server acknowledged it."""

    def __init__(self, cfg: AgentConfig, client: httpx.Client | None = None) -> None:
        self.url = cfg.server.rstrip("/") + "/v1/reports"
        self.client = client or httpx.Client(timeout=cfg.timeout_s, verify=cfg.verify)
        self.headers = {"Authorization": f"Bearer {cfg.token}"}
        self.rejected = 0

    def __call__(self, report: AgentReport) -> bool:
        body = b'{"schema_version":1,"reports":[' + report.to_json_bytes() + b"]}"
        try:
            resp = self.client.post(self.url, content=body, headers={
                **self.headers, "Content-Type": "application/json"})
        except httpx.HTTPError:
            return False
        if resp.status_code in _PERMANENT_REJECTIONS:
            self.rejected += 1
            log.warning("report %s rejected: %s %s", report.report_id, resp.status_code, resp.text)
            return True
        return resp.status_code == 200


@dataclass
class RecordingCollector:
    """Wraps a collector and keeps its latest sample for the exporter."""

    inner: Collector
    last: MetricSample | None = None

    def collect(self, now_s: float) -> MetricSample:
        self.last = self.inner.collect(now_s)
        return self.last


@dataclass
class AgentExporter:
    """Gauges ``aesp_node_<metric>{node}`` plus the agent's own reporting counters."""

    node: str
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.gauges = {m: Gauge(gauge_name(m), f"Node metric {m}", ["node"], registry=r)
                       for m in METRIC_NAMES}
        self.buffered = Gauge("aesp_agent_buffered_reports", "Undelivered reports", registry=r)
        self.interval = Gauge("aesp_agent_report_interval_seconds", "Current interval", registry=r)
        self.counts = {k: Counter(f"aesp_agent_reports_{k}", f"Reports {k}", registry=r)
                       for k in ("created", "delivered", "dropped")}
        self._seen = {k: 0 for k in self.counts}

    def update(self, sample: MetricSample | None, agent: Agent) -> None:
        if sample is not None:
            for m, g in self.gauges.items():
                value = getattr(sample, m)
                if value is None:
                    g.remove(self.node) if (self.node,) in _label_sets(g) else None
                else:
                    g.labels(self.node).set(value)
        self.buffered.set(agent.buffered)
        self.interval.set(agent.policy.interval_s)
        for k, counter in self.counts.items():
            total = getattr(agent.stats, k)
            counter.inc(total - self._seen[k])
            self._seen[k] = total


def _label_sets(g: Gauge) -> set[tuple[str, ...]]:
    return {tuple(s.labels.values()) for metric in g.collect() for s in metric.samples}


def host_node_spec(cfg: AgentConfig) -> dict[str, object]:
    """This host as a node registration: cores, memory, architecture."""
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}
    return {
        "name": cfg.node,
        "site": cfg.site,
        "cpu_milli": float((psutil.cpu_count() or 1) * 1000),
        "mem_mib": psutil.virtual_memory().total / 2**20,
        "arch": arch.get(platform.machine().lower(), "x86_64"),
    }


def register_node(cfg: AgentConfig, client: httpx.Client) -> bool:
    """Announce this node to the control plane; False (logged) when it is unreachable."""
    try:
        resp = client.post(cfg.server.rstrip("/") + "/v1/nodes",
                           json={"node": host_node_spec(cfg)},
                           headers={"Authorization": f"Bearer {cfg.token}"})
    except httpx.HTTPError as exc:
        log.warning("node registration failed: %s", exc)
        return False
    if resp.status_code != 200:
        log.warning("node registration refused: %s %s", resp.status_code, resp.text)
    return resp.status_code == 200


def build_agent(cfg: AgentConfig, transport: Callable[[AgentReport], bool]) -> tuple[Agent, RecordingCollector]:
    parts = urlsplit(cfg.server)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    probe = partial(tcp_connect_rtt_ms, parts.hostname or "127.0.0.1", port)
    collector = RecordingCollector(HostCollector(latency_probe=probe))
    agent = Agent(
        agent_id=cfg.agent_id, node=cfg.node, collector=collector,
        policy=Adaptive(steady_s=cfg.steady_s, fast_s=cfg.fast_s), transport=transport,
        clock=time.time, buffer_capacity=cfg.buffer,
    )
    return agent, collector


def run_agent(
    cfg: AgentConfig, stop: threading.Event | None = None, max_ticks: int | None = None
) -> AgentStats:
    """Tick every ``tick_s`` until ``stop`` is set or ``max_ticks`` ticks ran."""
    stop = stop or threading.Event()
    client = httpx.Client(timeout=cfg.timeout_s, verify=cfg.verify)
    agent, collector = build_agent(cfg, HttpTransport(cfg, client))
    exporter = AgentExporter(cfg.node)
    if cfg.metrics_port:
        start_http_server(cfg.metrics_port, addr=cfg.metrics_host, registry=exporter.registry)
    registered = cfg.register and register_node(cfg, client)
    ticks = 0
    while not stop.is_set() and (max_ticks is None or ticks < max_ticks):
        started = time.monotonic()
        if cfg.register and not registered:
            registered = register_node(cfg, client)
        agent.tick()
        exporter.update(collector.last, agent)
        ticks += 1
        stop.wait(max(0.0, cfg.tick_s - (time.monotonic() - started)))
    client.close()
    return agent.stats
