"""The node agent: collect every tick, report when the policy says so, buffer while disconnected.

One implementation serves the simulator (a :class:`~aesp.perception.collectors.SimulatedCollector`
and a transport that hands reports to an in-process aggregator) and a real node (a
:class:`~aesp.perception.collectors.HostCollector` and a network transport). The agent never
reads the wall clock: time comes from ``tick(now_s)`` or from the injected ``clock``.

Delivery: each report gets the next sequence number and goes to the back of a bounded FIFO
buffer; the agent then sends from the front until the buffer is empty or a send fails. A
transport returns True when the receiver acknowledged the report. So while the link is down
reports pile up in the buffer, and on reconnect they are delivered oldest first, in order. When
the buffer is full the *oldest* report is dropped (newer state is worth more to a scheduler) and
counted in :attr:`AgentStats.dropped`. A report is retried with the same ``report_id`` until
acknowledged, so a receiver that deduplicates by id sees each report once even when an ack was
lost.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from aesp.perception.adaptive import ReportingPolicy
from aesp.perception.collectors import Collector
from aesp.perception.schema import AgentReport

Transport = Callable[[AgentReport], bool]
"""Sends one report; returns True when it was acknowledged, False (or raises OSError) when not."""

_EPS_S = 1e-9


@dataclass
class AgentStats:
    """Counters an agent keeps about its own reporting."""

    ticks: int = 0
    created: int = 0
    delivered: int = 0
    dropped: int = 0
    """Reports discarded, oldest first, because the buffer was full."""
    failed_sends: int = 0
    reconnects: int = 0
    max_buffered: int = 0


class ReportBuffer:
    """A bounded FIFO of undelivered reports that drops the oldest when full."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("buffer capacity must be at least 1")
        self.capacity = capacity
        self._items: deque[AgentReport] = deque()
        self.dropped = 0

    def push(self, report: AgentReport) -> AgentReport | None:
        """Append; returns the report dropped to make room, if any."""
        dropped = self._items.popleft() if len(self._items) >= self.capacity else None
        self.dropped += dropped is not None
        self._items.append(report)
        return dropped

    def peek(self) -> AgentReport:
        return self._items[0]

    def pop(self) -> AgentReport:
        return self._items.popleft()

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[AgentReport]:
        return iter(self._items)


@dataclass
class Agent:
    """Collects a sample every tick and reports at the interval the policy asks for.

    Units: times in seconds on the injected clock.
    """

    agent_id: str
    node: str
    collector: Collector
    policy: ReportingPolicy
    transport: Transport
    clock: Callable[[], float] | None = None
    """Used by :meth:`tick` when no time is given (a real node passes ``time.time``)."""
    buffer_capacity: int = 720
    """Undelivered reports kept while disconnected: 720 = one hour at the 5 s fast interval."""
    stats: AgentStats = field(default_factory=AgentStats, init=False)
    last_report_s: float | None = field(default=None, init=False)
    connected: bool = field(default=True, init=False)
    _buffer: ReportBuffer = field(init=False, repr=False)
    _seq: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self._buffer = ReportBuffer(self.buffer_capacity)

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def tick(self, now_s: float | None = None) -> AgentReport | None:
        """Collect, update the policy, retry buffered reports, then report if due.

        Returns:
            The report created this tick (delivered or buffered), or None when none was due.
        """
        now_s = self._now(now_s)
        self.stats.ticks += 1
        sample = self.collector.collect(now_s)
        self.policy.observe(now_s, sample)
        reachable = self._flush(now_s)  # retry the backlog first, so a returned link makes room
        report = None
        if self._due(now_s):
            report = AgentReport(
                agent_id=self.agent_id, node=self.node, seq=self._seq, time_s=now_s, metrics=sample
            )
            self._seq += 1
            self.last_report_s = now_s
            self.stats.created += 1
            self._buffer.push(report)
            self.stats.dropped = self._buffer.dropped
            if reachable:  # one failed send per tick is enough
                self._flush(now_s)
        return report

    def _now(self, now_s: float | None) -> float:
        if now_s is not None:
            return now_s
        if self.clock is None:
            raise ValueError("tick() needs now_s when the agent has no clock")
        return self.clock()

    def _due(self, now_s: float) -> bool:
        if self.last_report_s is None:
            return True
        return now_s - self.last_report_s >= self.policy.interval_s - _EPS_S

    def _flush(self, now_s: float) -> bool:
        """Send from the front of the buffer; False when a send failed."""
        self.stats.max_buffered = max(self.stats.max_buffered, len(self._buffer))
        while len(self._buffer):
            if not self._send(self._buffer.peek()):
                self.stats.failed_sends += 1
                self.connected = False
                return False
            self._buffer.pop()
            self.stats.delivered += 1
            if not self.connected:
                self.connected = True
                self.stats.reconnects += 1
                self.policy.on_reconnect(now_s)
        return True

    def _send(self, report: AgentReport) -> bool:
        try:
            return bool(self.transport(report))
        except OSError:
            return False
