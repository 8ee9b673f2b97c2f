"""Elastic GPU capacity per region, brought up reactively or ahead of a forecast peak.

A pool of *elastic* GPU nodes per region starts parked (powered off: down in the simulator, so
the ``NodeUp`` filter never offers them). Bringing one up takes ``provision_delay_s`` (boot,
image pull, or a migration from another region); it is paid for from the moment it is asked for
until it is parked again. Only an idle node is parked, so no running task is ever killed.

Every ``tick_s`` the controller computes, for each region ``r``, how many elastic nodes should be
active, and boots or parks to match:

- **reactive** (the baseline): the elastic nodes still busy, plus enough parked nodes to hold the
  GPU demand of tasks from ``r`` that have waited at least ``wait_trigger_s`` and could run on
  one of ``r``'s elastic nodes (a full queue is the signal).
- **predictive**: the larger of the reactive count and the count that keeps the forecast peak of
  ``r``'s GPU demand (allocated plus queued GPUs of tasks from ``r``) over the next
  ``forecast_horizon_s`` below ``target_util`` of ``r``'s active capacity. The forecast is
  :func:`aesp.placement.plugins.forecast.forecast_peak` over one sample per tick; with fewer
  than ``min_history_steps`` samples, or when it fails, the controller acts exactly like the
  reactive one (the forecast is a plugin over the deterministic baseline).

Parking is the same in both modes: an elastic node idle for ``idle_park_s`` is parked when the
region wants fewer nodes than it has. The controller is an :class:`aesp.sim.driver.Ticker`; it
sees the queue through :meth:`ProvisioningController.watch`, a scheduler wrapper that records the
tasks each cycle left pending.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Literal

import numpy as np

from aesp.core import GPU, ClusterSnapshot, Decision, NodeTable, Scheduler, Task
from aesp.core.resources import FloatArray, IntArray
from aesp.placement.plugins.forecast import forecast_peak
from aesp.sim.fleet import Fleet

Mode = Literal["reactive", "predictive"]


@dataclass(frozen=True)
class ProvisioningConfig:
    """Settings of the elastic-capacity controller (same for both modes)."""

    tick_s: float = 60.0
    """Controller period, and the forecast's sample step."""
    provision_delay_s: float = 900.0
    """From asking for a node to the node taking tasks (boot or cross-region migration)."""
    wait_trigger_s: float = 120.0
    """A task counts as waiting (the reactive signal) once pending this long."""
    idle_park_s: float = 900.0
    """An elastic node idle this long may be parked."""
    forecast_horizon_s: float = 1800.0
    """How far ahead the predictive mode looks; should exceed ``provision_delay_s``."""
    target_util: float = 0.9
    """Predictive mode keeps forecast GPU demand below this fraction of active capacity."""
    min_history_steps: int = 10
    """Fewer demand samples than this and the predictive mode acts reactively."""
    history_steps: int = 60
    """Demand samples kept per region."""
    trend_window_steps: int = 30
    """Samples the trend's slope is fitted on (longer is smoother)."""
    model: str = "trend"
    """Forecaster of :func:`aesp.placement.plugins.forecast.forecast_peak`."""


class NodeState(IntEnum):
    PARKED = 0
    BOOTING = 1
    ACTIVE = 2


def can_run(task: Task, table: NodeTable, node: int) -> bool:
    """Whether ``task`` could ever run on the (empty) ``node``: size, GPU model, arch, area."""
    n = table.nodes[node]
    r = task.request
    site = table.topology.sites[int(table.site[node])]
    return (
        r.gpu_count <= n.gpu_count
        and r.cpu_milli <= n.cpu_milli
        and r.mem_mib <= n.mem_mib
        and (not task.gpu_models or n.gpu_model in task.gpu_models)
        and (not task.arches or n.arch in task.arches)
        and (not task.allowed_jurisdictions or site.jurisdiction in task.allowed_jurisdictions)
    )


def nodes_to_cover(demand_milli: float, capacities_milli: FloatArray) -> int:
    """How many of the nodes (in order) it takes to hold ``demand_milli`` GPU milli (all if
    they cannot)."""
    if demand_milli <= 0:
        return 0
    covered = np.cumsum(capacities_milli) >= demand_milli
    return int(np.argmax(covered)) + 1 if covered.any() else len(capacities_milli)


@dataclass
class _WatchedScheduler:
    """Passes every call to ``inner`` and tells the controller what stayed pending."""

    inner: Scheduler
    controller: ProvisioningController

    @property
    def name(self) -> str:
        return str(getattr(self.inner, "name", "watched"))

    def decide(self, snapshot: ClusterSnapshot, pending: Sequence[Task]) -> Decision:
        decision = self.inner.decide(snapshot, pending)
        bound = {b.task_id for b in decision.bindings}
        self.controller.queue = [t for t in pending if t.id not in bound]
        return decision


@dataclass
class ProvisioningController:
    """Boots and parks a region's elastic GPU nodes (module doc); a simulator ``Ticker``.

    Attributes:
        node_seconds: Elastic node-seconds paid for so far (booting or active).
        boots: Boot requests made.
        forecast_boots: Boot requests the reactive rule alone would not have made.
    """

    table: NodeTable
    elastic: IntArray
    mode: Mode = "reactive"
    config: ProvisioningConfig = field(default_factory=ProvisioningConfig)
    queue: list[Task] = field(default_factory=list)
    node_seconds: float = 0.0
    boots: int = 0
    forecast_boots: int = 0
    forecast_skips: int = 0
    events: list[tuple[float, str, int]] = field(default_factory=list)
    """``(time_s, "boot" | "ready" | "park", node)`` in order."""

    def __post_init__(self) -> None:
        sites = self.table.topology.sites
        regions = [sites[int(s)].region for s in self.table.site]
        self.regions = tuple(dict.fromkeys(regions))
        self.region = np.array([self.regions.index(r) for r in regions], np.int64)
        index = {r: i for i, r in enumerate(self.regions)}
        self.site_region = {s.name: index[s.region] for s in sites if s.region in index}
        self.is_elastic = np.zeros(len(self.table), np.bool_)
        self.is_elastic[self.elastic] = True
        self.state = np.full(len(self.table), NodeState.ACTIVE, np.int64)
        self.ready_s = np.zeros(len(self.table))
        self.idle_since_s = np.zeros(len(self.table))
        self.demand: list[FloatArray] = []
        self._next_tick_s = 0.0
        self._last_s = 0.0

    @property
    def next_tick_s(self) -> float:
        return self._next_tick_s

    def watch(self, scheduler: Scheduler) -> Scheduler:
        """``scheduler`` wrapped so that the controller sees the queue after each cycle."""
        return _WatchedScheduler(scheduler, self)

    def tick(self, fleet: Fleet, now_s: float) -> bool:
        """Account cost, finish boots, sample demand, then boot or park; True asks a cycle."""
        if now_s == 0.0 and not self.demand:
            self._park_all(fleet)
        paid = self.is_elastic & (self.state != NodeState.PARKED)
        self.node_seconds += float(paid.sum()) * (now_s - self._last_s)
        self._last_s = now_s
        self._next_tick_s = now_s + self.config.tick_s
        ready = self._finish_boots(fleet, now_s)
        self._track_idle(fleet, now_s)
        self.demand.append(self._demand(fleet))
        self.demand = self.demand[-self.config.history_steps :]
        for r in range(len(self.regions)):
            self._balance(fleet, r, now_s)
        return ready

    def _park_all(self, fleet: Fleet) -> None:
        self.state[self.elastic] = NodeState.PARKED
        fleet.up[self.elastic] = False

    def _finish_boots(self, fleet: Fleet, now_s: float) -> bool:
        done = (self.state == NodeState.BOOTING) & (self.ready_s <= now_s)
        self.state[done] = NodeState.ACTIVE
        fleet.up[done] = True
        self.events += [(now_s, "ready", int(n)) for n in np.flatnonzero(done)]
        self.idle_since_s[done] = now_s
        return bool(done.any())

    def _track_idle(self, fleet: Fleet, now_s: float) -> None:
        busy = fleet.allocated.sum(axis=1) > 0
        self.idle_since_s[busy] = now_s

    def _waiting_milli(self, now_s: float, region: int, old_only: bool) -> float:
        """GPU milli of queued tasks from ``region`` that an elastic node there could run."""
        nodes = np.flatnonzero(self.is_elastic & (self.region == region))
        total = 0.0
        for t in self.queue:
            if old_only and now_s - t.arrival_s < self.config.wait_trigger_s:
                continue
            if self.site_region.get(t.data_origin, -1) != region or t.request.gpu_count == 0:
                continue
            if any(can_run(t, self.table, int(n)) for n in nodes):
                total += float(t.request.gpu_total_milli)
        return total

    def _demand(self, fleet: Fleet) -> FloatArray:
        """``(regions,)`` GPU milli allocated in each region plus queued from it."""
        alloc = np.bincount(self.region, fleet.allocated[:, GPU], minlength=len(self.regions))
        queued = np.zeros(len(self.regions))
        for t in self.queue:
            r = self.site_region.get(t.data_origin, -1)
            if r >= 0:
                queued[r] += float(t.request.gpu_total_milli)
        return np.asarray(alloc + queued, np.float64)

    def _wanted(self, fleet: Fleet, region: int, now_s: float) -> tuple[int, int]:
        """Elastic nodes ``region`` should have booting or active: (wanted, reactive rule's)."""
        mine = self.is_elastic & (self.region == region)
        parked = np.flatnonzero(mine & (self.state == NodeState.PARKED))
        gpu_cap = self.table.capacity[:, GPU]
        busy = int((mine & (fleet.allocated.sum(axis=1) > 0)).sum())
        booting = int((mine & (self.state == NodeState.BOOTING)).sum())
        waiting = self._waiting_milli(now_s, region, old_only=True)
        reactive = busy + max(booting, nodes_to_cover(waiting, gpu_cap[parked]))
        if self.mode == "reactive":
            return reactive, reactive
        peak = self._forecast_peak(region)
        if peak is None:
            return reactive, reactive
        base = self.region == region
        base_cap = float(gpu_cap[base & ~self.is_elastic & fleet.up].sum())
        short = peak / self.config.target_util - base_cap
        elastic_order = np.flatnonzero(mine)
        return max(reactive, nodes_to_cover(short, gpu_cap[elastic_order])), reactive

    def _forecast_peak(self, region: int) -> float | None:
        if len(self.demand) < self.config.min_history_steps:
            self.forecast_skips += 1
            return None
        history = np.stack(self.demand, axis=1)[region : region + 1]
        horizon = max(1, math.ceil(self.config.forecast_horizon_s / self.config.tick_s))
        try:
            peak = float(
                forecast_peak(
                    history,
                    int(self.config.tick_s),
                    horizon,
                    self.config.model,
                    trend_window=self.config.trend_window_steps,
                )[0]
            )
        except Exception:  # the reactive rule still runs when the forecaster fails
            peak = math.nan
        if not math.isfinite(peak):
            self.forecast_skips += 1
            return None
        return peak

    def _balance(self, fleet: Fleet, region: int, now_s: float) -> None:
        mine = self.is_elastic & (self.region == region)
        have = int((mine & (self.state != NodeState.PARKED)).sum())
        want, reactive = self._wanted(fleet, region, now_s)
        if want > have:
            booted = self._boot(region, want - have, now_s)
            self.forecast_boots += min(booted, want - max(have, reactive))
        elif want < have:
            self._park_idle(fleet, region, have - want, now_s)

    def _boot(self, region: int, count: int, now_s: float) -> int:
        parked = np.flatnonzero(
            self.is_elastic & (self.region == region) & (self.state == NodeState.PARKED)
        )[:count]
        self.state[parked] = NodeState.BOOTING
        self.ready_s[parked] = now_s + self.config.provision_delay_s
        self.boots += len(parked)
        self.events += [(now_s, "boot", int(n)) for n in parked]
        return len(parked)

    def _park_idle(self, fleet: Fleet, region: int, count: int, now_s: float) -> None:
        idle = (
            self.is_elastic
            & (self.region == region)
            & (self.state == NodeState.ACTIVE)
            & (fleet.allocated.sum(axis=1) == 0)
            & (now_s - self.idle_since_s >= self.config.idle_park_s)
        )
        chosen = np.flatnonzero(idle)[:count]
        self.state[chosen] = NodeState.PARKED
        fleet.up[chosen] = False
        self.events += [(now_s, "park", int(n)) for n in chosen]

    def close(self, end_s: float) -> None:
        """Pay for the nodes still up until ``end_s`` (ticks stop once nothing is pending)."""
        paid = self.is_elastic & (self.state != NodeState.PARKED)
        self.node_seconds += float(paid.sum()) * max(0.0, end_s - self._last_s)
        self._last_s = max(self._last_s, end_s)

    @property
    def node_hours(self) -> float:
        """Elastic node-hours paid for (booting or active)."""
        return self.node_seconds / 3600.0


def elastic_nodes(table: NodeTable, marker: str = "elastic") -> IntArray:
    """Indices of the nodes whose name contains ``marker`` (pools named ``*-elastic-*``)."""
    return np.array([i for i, n in enumerate(table.nodes) if marker in n.name], np.int64)


__all__ = [
    "Mode",
    "NodeState",
    "ProvisioningConfig",
    "ProvisioningController",
    "can_run",
    "elastic_nodes",
    "nodes_to_cover",
]
