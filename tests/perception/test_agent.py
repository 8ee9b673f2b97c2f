"""The agent: when it reports, how it buffers, and what it delivers on reconnect."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.perception.adaptive import Adaptive, FixedInterval
from aesp.perception.agent import Agent, ReportBuffer
from aesp.perception.collectors import FleetMetrics
from aesp.perception.schema import AgentReport, MetricSample


class FlakyLink:
    """A transport that records what it received and can be cut."""

    def __init__(self) -> None:
        self.up = True
        self.received: list[AgentReport] = []

    def __call__(self, report: AgentReport) -> bool:
        if self.up:
            self.received.append(report)
        return self.up


def _agent(
    policy: FixedInterval | Adaptive, link: FlakyLink, capacity: int = 720
) -> tuple[Agent, FleetMetrics]:
    fleet = FleetMetrics(["n1"])
    fleet.set_metric("cpu_pct", np.array([20.0]))
    agent = Agent("a1", "n1", fleet.collector("n1"), policy, link, buffer_capacity=capacity)
    return agent, fleet


def test_fixed_interval_reports_every_30_s_on_5_s_ticks() -> None:
    link = FlakyLink()
    agent, _ = _agent(FixedInterval(30.0), link)
    for tick in range(13):  # t = 0, 5, ..., 60
        agent.tick(tick * 5.0)
    assert [r.time_s for r in link.received] == [0.0, 30.0, 60.0]
    assert [r.seq for r in link.received] == [0, 1, 2]


def test_adaptive_agent_reports_fast_during_a_burst() -> None:
    link = FlakyLink()
    agent, fleet = _agent(Adaptive(), link)
    for tick in range(20):
        fleet.set_metric("cpu_pct", np.array([20.0 if tick < 8 else 90.0]))
        agent.tick(tick * 5.0)
    times = [r.time_s for r in link.received]
    # 0 and 30 steady; burst at t=40 -> fast mode, due at once (40 - 30 >= 5), then every 5 s
    # until calm: the step leaves the 6-delta window at tick 14, calm for ticks 14-16 -> steady
    # at t=80, the last fast report at t=75.
    assert times == [0.0, 30.0, 40.0, 45.0, 50.0, 55.0, 60.0, 65.0, 70.0, 75.0]


def test_buffer_overflow_drops_oldest_and_counts() -> None:
    buffer = ReportBuffer(capacity=3)
    reports = [
        AgentReport(agent_id="a", node="n", seq=i, time_s=float(i), metrics=MetricSample())
        for i in range(5)
    ]
    dropped = [buffer.push(r) for r in reports]
    assert [d.seq if d else None for d in dropped] == [None, None, None, 0, 1]
    assert [r.seq for r in buffer] == [2, 3, 4]
    assert buffer.dropped == 2


def test_reconnect_delivers_all_buffered_in_order() -> None:
    link = FlakyLink()
    agent, _ = _agent(FixedInterval(5.0), link)
    agent.tick(0.0)
    link.up = False
    for tick in range(1, 7):  # six reports while the link is down
        agent.tick(tick * 5.0)
    assert agent.buffered == 6 and not agent.connected
    link.up = True
    agent.tick(35.0)
    assert [r.seq for r in link.received] == list(range(8))
    assert agent.buffered == 0 and agent.connected
    assert (agent.stats.delivered, agent.stats.dropped, agent.stats.reconnects) == (8, 0, 1)


def test_long_outage_overflows_and_keeps_newest() -> None:
    link = FlakyLink()
    agent, _ = _agent(FixedInterval(5.0), link, capacity=4)
    link.up = False
    for tick in range(10):  # seq 0..9 created while down; only 6..9 fit
        agent.tick(tick * 5.0)
    link.up = True
    agent.tick(50.0)  # seq 10
    assert [r.seq for r in link.received] == [6, 7, 8, 9, 10]
    assert agent.stats.dropped == 6


def test_reconnect_switches_adaptive_policy_to_fast() -> None:
    link = FlakyLink()
    agent, _ = _agent(Adaptive(), link)
    link.up = False
    agent.tick(0.0)
    link.up = True
    agent.tick(5.0)  # retry succeeds -> reconnect -> fast mode
    assert agent.policy.interval_s == 5.0


def test_transport_errors_count_as_failed_sends() -> None:
    def broken(report: AgentReport) -> bool:
        raise OSError("connection refused")

    fleet = FleetMetrics(["n1"])
    agent = Agent("a1", "n1", fleet.collector("n1"), FixedInterval(5.0), broken)
    agent.tick(0.0)
    assert agent.buffered == 1 and agent.stats.failed_sends == 1


def test_injected_clock_and_missing_clock() -> None:
    link = FlakyLink()
    fleet = FleetMetrics(["n1"])
    agent = Agent("a1", "n1", fleet.collector("n1"), FixedInterval(5.0), link, clock=lambda: 42.0)
    agent.tick()
    assert link.received[0].time_s == 42.0
    agent.clock = None
    with pytest.raises(ValueError, match="now_s"):
        agent.tick()
