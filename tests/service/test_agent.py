"""``aesp agent`` pieces: HTTP transport, buffering across a disconnect, exporter, registration."""

from __future__ import annotations

from typing import Any

import httpx
from prometheus_client import generate_latest

from aesp.perception.adaptive import FixedInterval
from aesp.perception.agent import Agent
from aesp.perception.schema import MetricSample
from aesp.service.agent_runner import (
    AgentConfig,
    AgentExporter,
    HttpTransport,
    register_node,
)

CFG = AgentConfig(server="http://testserver", token="token-a", node="n-edge", agent_id="agent-a")


class Steady:
    def collect(self, now_s: float) -> MetricSample:
        return MetricSample(cpu_pct=20.0 + now_s % 7, mem_pct=40.0)


class Switch(httpx.BaseTransport):
    """Routes to the app, or fails like a dead network while ``down``."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner, self.down = inner, False

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("connection refused", request=request)
        return self.inner.handle_request(request)


def test_reports_buffer_while_disconnected_and_arrive_in_order(client: Any) -> None:
    switch = Switch(client._transport)
    http = httpx.Client(transport=switch, base_url="http://testserver")
    agent = Agent("agent-a", "n-edge", Steady(), FixedInterval(5.0), HttpTransport(CFG, http))
    agent.tick(1_700_000_000.0)
    switch.down = True
    for i in range(1, 4):
        agent.tick(1_700_000_000.0 + 5 * i)
    assert agent.buffered == 3 and not agent.connected
    switch.down = False
    agent.tick(1_700_000_020.0)
    assert agent.buffered == 0 and agent.stats.reconnects == 1
    seqs = [r["seq"] for r in client.get("/v1/reports", params={"node": "n-edge"}).json()]
    assert seqs == [0, 1, 2, 3, 4]


def test_permanently_rejected_reports_do_not_block_the_buffer(client: Any) -> None:
    http = httpx.Client(transport=client._transport, base_url="http://testserver")
    transport = HttpTransport(AgentConfig(**{**CFG.__dict__, "agent_id": "agent-b"}), http)
    agent = Agent("agent-b", "n-edge", Steady(), FixedInterval(5.0), transport)
    agent.tick(1_700_000_000.0)  # token-a cannot post agent-b's reports: 403, dropped, counted
    assert transport.rejected == 1 and agent.buffered == 0


def test_register_node_and_exporter(client: Any) -> None:
    http = httpx.Client(transport=client._transport, base_url="http://testserver")
    cfg = AgentConfig(**{**CFG.__dict__, "node": "this-host", "site": "edge-1"})
    assert register_node(cfg, http)
    assert "this-host" in {n["name"] for n in client.get("/v1/nodes").json()}
    agent = Agent("agent-a", "this-host", Steady(), FixedInterval(5.0), lambda r: True)
    agent.tick(0.0)
    exporter = AgentExporter("this-host")
    exporter.update(MetricSample(cpu_pct=12.5), agent)
    text = generate_latest(exporter.registry).decode()
    assert 'aesp_node_cpu_pct{node="this-host"} 12.5' in text
    assert "aesp_agent_reports_delivered_total 1.0" in text
