"""A seeded fault process: node failures, agent disconnects, report jitter and load bursts.

Every episode is drawn up front from an explicit :class:`numpy.random.Generator` (no module
state), so one seed gives one fault timeline that every reporting policy and scheduler replays.

Per node, episodes of each kind form an alternating renewal process: the gap before each episode
is exponential with mean ``*_mtbf_s`` and its length exponential with mean ``*_mean_s``
(memoryless failures and repairs, the usual first model of availability). Episodes start in
``[0, horizon_s)``; a kind whose ``*_mtbf_s`` is ``None`` never happens.

- **failure**: the node is down in ground truth; tasks running there are killed (the driver
  counts them as failed) and its agent stops reporting.
- **disconnect**: the node keeps running, but its agent cannot reach the aggregator; reports pile
  up in the agent's buffer and are delivered on reconnect.
- **burst**: extra CPU usage the scheduler did not place (system daemons, a noisy neighbour,
  an unmanaged job) of ``uniform(burst_cpu_frac)`` of the node's CPU capacity.
- **jitter**: each delivered report is delayed by an exponential time of mean ``jitter_mean_s``.

The driver applies failures and bursts (:meth:`FaultPlan.events`); disconnects and jitter only
matter to whoever models the agents' transport (:meth:`FaultPlan.disconnected`,
:meth:`FaultPlan.delay_s`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from aesp.core.resources import BoolArray, FloatArray, IntArray


class FaultKind(IntEnum):
    """Timed changes to ground truth; at equal times lower values apply first."""

    RECOVER = 0
    BURST_END = 1
    FAIL = 2
    BURST_START = 3


@dataclass(frozen=True)
class FaultConfig:
    """Rates and sizes of the fault process. Units: seconds; fractions of CPU capacity."""

    failure_mtbf_s: float | None = None
    """Mean up time of a node between failures; None: nodes never fail."""
    failure_mean_s: float = 600.0
    """Mean time a failed node stays down."""
    disconnect_mtbf_s: float | None = None
    """Mean time between an agent's disconnect episodes; None: never."""
    disconnect_mean_s: float = 120.0
    """Mean length of a disconnect episode."""
    burst_mtbf_s: float | None = None
    """Mean time between a node's load bursts; None: never."""
    burst_mean_s: float = 300.0
    """Mean length of a load burst."""
    burst_cpu_frac: tuple[float, float] = (0.4, 0.7)
    """A burst's extra CPU usage, drawn uniformly in this range of the node's CPU capacity."""
    jitter_mean_s: float = 0.0
    """Mean extra delay of a report on its way to the aggregator; 0: none."""

    def __post_init__(self) -> None:
        for name in ("failure_mtbf_s", "disconnect_mtbf_s", "burst_mtbf_s"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive or None")
        if min(self.failure_mean_s, self.disconnect_mean_s, self.burst_mean_s) <= 0:
            raise ValueError("episode means must be positive")
        lo, hi = self.burst_cpu_frac
        if not 0 <= lo <= hi:
            raise ValueError("burst_cpu_frac must be (low, high) with 0 <= low <= high")
        if self.jitter_mean_s < 0:
            raise ValueError("jitter_mean_s must be non-negative")


@dataclass(frozen=True)
class Episodes:
    """Episodes of one kind. Shapes: all ``(E,)``, sorted by start."""

    node: IntArray
    start_s: FloatArray
    end_s: FloatArray

    def __len__(self) -> int:
        return len(self.node)

    def active(self, now_s: float, n_nodes: int) -> BoolArray:
        """``(N,)`` True for nodes inside an episode at ``now_s`` (start inclusive, end not)."""
        out = np.zeros(n_nodes, np.bool_)
        hit = (self.start_s <= now_s) & (now_s < self.end_s)
        out[self.node[hit]] = True
        return out


@dataclass(frozen=True, order=True)
class FaultEvent:
    """One change to ground truth. Units: seconds; CPU millicores for bursts."""

    time_s: float
    kind: FaultKind
    node: int
    cpu_milli: float = 0.0


def draw_episodes(
    rng: np.random.Generator, n_nodes: int, horizon_s: float, mtbf_s: float | None, mean_s: float
) -> Episodes:
    """Alternating exponential gaps and episodes per node, starting in ``[0, horizon_s)``."""
    nodes: list[int] = []
    starts: list[float] = []
    ends: list[float] = []
    if mtbf_s is not None:
        for i in range(n_nodes):
            t = float(rng.exponential(mtbf_s))
            while t < horizon_s:
                length = float(rng.exponential(mean_s))
                nodes.append(i)
                starts.append(t)
                ends.append(t + length)
                t += length + float(rng.exponential(mtbf_s))
    order = np.argsort(np.array(starts), kind="stable")
    return Episodes(
        node=np.array(nodes, np.int64)[order],
        start_s=np.array(starts, np.float64)[order],
        end_s=np.array(ends, np.float64)[order],
    )


@dataclass
class FaultPlan:
    """One seeded fault timeline for a fleet.

    Shapes: ``burst_cpu_milli`` ``(B,)``, one per burst episode.
    """

    config: FaultConfig
    n_nodes: int
    failures: Episodes
    disconnects: Episodes
    bursts: Episodes
    burst_cpu_milli: FloatArray
    jitter_rng: np.random.Generator = field(repr=False)

    @classmethod
    def draw(
        cls,
        config: FaultConfig,
        cpu_capacity_milli: FloatArray,
        horizon_s: float,
        rng: np.random.Generator,
    ) -> FaultPlan:
        """Draw every episode for ``len(cpu_capacity_milli)`` nodes.

        Each kind gets its own child generator spawned from ``rng``, so turning one kind off
        does not change the timeline of the others.

        Shapes: cpu_capacity_milli ``(N,)``.
        """
        n = len(cpu_capacity_milli)
        fail_rng, disc_rng, burst_rng, jitter_rng = rng.spawn(4)
        failures = draw_episodes(fail_rng, n, horizon_s, config.failure_mtbf_s, config.failure_mean_s)
        disconnects = draw_episodes(
            disc_rng, n, horizon_s, config.disconnect_mtbf_s, config.disconnect_mean_s
        )
        bursts = draw_episodes(burst_rng, n, horizon_s, config.burst_mtbf_s, config.burst_mean_s)
        lo, hi = config.burst_cpu_frac
        frac = burst_rng.uniform(lo, hi, len(bursts))
        cpu = frac * np.asarray(cpu_capacity_milli, np.float64)[bursts.node]
        return cls(config, n, failures, disconnects, bursts, cpu, jitter_rng)

    def events(self) -> list[FaultEvent]:
        """Failure, recovery and burst start/end events in time order.

        A node that fails again before it recovered stays down until its last recovery, which
        the driver handles by counting overlapping failures.
        """
        out = [
            FaultEvent(float(s), FaultKind.FAIL, int(i))
            for i, s in zip(self.failures.node, self.failures.start_s, strict=True)
        ]
        out += [
            FaultEvent(float(e), FaultKind.RECOVER, int(i))
            for i, e in zip(self.failures.node, self.failures.end_s, strict=True)
        ]
        for k in range(len(self.bursts)):
            i, cpu = int(self.bursts.node[k]), float(self.burst_cpu_milli[k])
            out.append(FaultEvent(float(self.bursts.start_s[k]), FaultKind.BURST_START, i, cpu))
            out.append(FaultEvent(float(self.bursts.end_s[k]), FaultKind.BURST_END, i, cpu))
        return sorted(out)

    def disconnected(self, now_s: float) -> BoolArray:
        """``(N,)`` True for agents that cannot reach their aggregator at ``now_s``."""
        return self.disconnects.active(now_s, self.n_nodes)

    def failed(self, now_s: float) -> BoolArray:
        """``(N,)`` True for nodes down at ``now_s`` according to the plan."""
        return self.failures.active(now_s, self.n_nodes)

    def delay_s(self) -> float:
        """One report's network delay, drawn from the plan's own jitter generator."""
        if self.config.jitter_mean_s <= 0:
            return 0.0
        return float(self.jitter_rng.exponential(self.config.jitter_mean_s))


__all__ = ["Episodes", "FaultConfig", "FaultEvent", "FaultKind", "FaultPlan", "draw_episodes"]
