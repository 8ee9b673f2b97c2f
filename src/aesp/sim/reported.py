"""Reported state: the scheduler sees usage as node agents last reported it.

The cheap, exact model of fixed-interval reporting used by ``aesp simulate`` by default (the full
agent machinery, with adaptive reporting, buffering and faults, is the perception experiment's).
Node ``n`` reports every ``interval_s`` at phase ``phase_n`` (seeded, uniform in the interval);
a report carries the node's usage at its report time. Usage is piecewise constant between
simulator events, so syncing reports before every event with the pre-event usage gives every
report its exact value. A node that stopped reporting (down) for ``timeout_reports`` intervals
is believed down. Every node starts with an idle report one interval before its first in-run
report (the cluster existed before the run). Allocations and GPU shares are the control plane's own bookkeeping (exact).
"""

from __future__ import annotations

import numpy as np

from aesp.core import ClusterSnapshot, NodeTable
from aesp.sim.fleet import Fleet


class ReportedState:
    """An :class:`aesp.sim.driver.Observer` of periodically reported usage."""

    def __init__(
        self, table: NodeTable, interval_s: float = 30.0, seed: int = 0, timeout_reports: float = 3.0
    ) -> None:
        if interval_s <= 0 or timeout_reports <= 0:
            raise ValueError("interval_s and timeout_reports must be positive")
        n = len(table)
        self.table, self.interval_s = table, interval_s
        self.timeout_s = timeout_reports * interval_s
        self.phase = np.random.default_rng([seed, 0x5EED]).uniform(0.0, interval_s, n)
        self.reported_usage = np.zeros((n, 3))
        # The fleet existed before the run: every node last reported an idle state one
        # interval before its first in-run report.
        self.reported_at = self.phase - interval_s
        self.reports = 0

    def sync(self, fleet: Fleet, now_s: float) -> None:
        """Record the reports due by ``now_s`` with the usage that held until now."""
        k = np.floor((now_s - self.phase) / self.interval_s)
        last = np.where(now_s >= self.phase, self.phase + k * self.interval_s, -np.inf)
        due = (last > self.reported_at) & fleet.up
        if due.any():
            self.reported_usage[due] = fleet.usage[due]
            self.reported_at[due] = last[due]
            self.reports += int(due.sum())

    def observe(self, fleet: Fleet, now_s: float) -> ClusterSnapshot:
        self.sync(fleet, now_s)
        staleness = now_s - self.reported_at
        return ClusterSnapshot(
            table=self.table,
            time_s=now_s,
            allocated=fleet.allocated.copy(),
            usage=self.reported_usage.copy(),
            gpu_free_milli=fleet.gpu_free_milli.copy(),
            up=staleness <= self.timeout_s,
            staleness_s=staleness,
            temperature_c=fleet.temperature_c.copy(),
        )
