"""The simulation loop: arrivals, scheduling cycles, starts, completions and departures.

Any :class:`aesp.core.Scheduler` can be driven; the simulator never imports the scheduling
framework. A scheduling cycle runs ``cycle_interval_s`` after the first change (an arrival or a
completion) that follows the previous cycle, so tasks arriving together are decided together.

Optional hooks, both off by default (and then the run is exactly as without them):

- a :class:`aesp.sim.faults.FaultPlan`: node failures kill the tasks running there (they count
  as *failed*, not requeued) and mark the node down in ground truth until it recovers; load
  bursts add CPU usage nobody placed. A binding to a down node fails; the task stays pending, the
  observer is told through its optional ``bind_failed(node, now_s)`` (the control plane sees
  the bind go unacknowledged), and a retry cycle follows ``bind_retry_s`` later.
- a :class:`Ticker`: a fleet-wide periodic callback (e.g. node agents reporting to a perceived
  view) that may ask for a scheduling cycle. It runs only while tasks are pending or still to
  arrive, since nothing is decided after that.

Every binding the scheduler makes is checked against ground truth: it is a **mis-schedule** when
the node is down, or its measured CPU usage (tasks plus bursts, before the new task) exceeds
``overload_cpu_pct`` of its CPU capacity at that instant.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from aesp.core import CPU, Binding, ClusterSnapshot, Code, NodeTable, Scheduler, Task
from aesp.sim.engine import EventKind, EventQueue
from aesp.sim.faults import FaultEvent, FaultKind, FaultPlan
from aesp.sim.fleet import Fleet
from aesp.sim.recorder import Outcome, Recorder, RunMetrics, gpu_fragmentation

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class SimConfig:
    """Simulation settings."""

    cycle_interval_s: float = 1.0
    """Delay between a change and the scheduling cycle it triggers (the batch window)."""
    max_wait_s: float | None = None
    """A task still pending this long after arrival leaves unscheduled; None waits forever."""
    record_fragmentation: bool = True
    """Sample GPU fragmentation after every cycle."""
    compliance_usd_per_gb: float = 0.05
    """Compliance cost charged per GB of data processed outside its origin's jurisdiction."""
    overload_cpu_pct: float = 90.0
    """A binding to a node whose actual CPU usage is above this % of capacity is a mis-schedule."""
    bind_retry_s: float = 10.0
    """With faults on: delay of the retry cycle after a binding to a down node failed."""


class SpeedModel(Protocol):
    """How fast a task runs on a node, relative to the reference (1.0)."""

    def speed(self, task: Task, node: int) -> float: ...


class Observer(Protocol):
    """What the scheduler is shown of the fleet (ground truth, or perceived state)."""

    def observe(self, fleet: Fleet, now_s: float) -> ClusterSnapshot: ...


class Ticker(Protocol):
    """A periodic fleet-wide callback; ``tick`` returns True to ask for a scheduling cycle."""

    @property
    def next_tick_s(self) -> float:
        """Simulated time of the next tick; ``tick`` advances it."""
        ...

    def tick(self, fleet: Fleet, now_s: float) -> bool: ...


class _PeekQueue(EventQueue):
    def peek_time(self) -> float:
        return self._heap[0].time_s if self._heap else math.inf


class GroundTruth:
    """The oracle view: the scheduler sees the fleet exactly."""

    def observe(self, fleet: Fleet, now_s: float) -> ClusterSnapshot:
        return fleet.snapshot(now_s)


class UnitSpeed:
    """Every node runs every task at reference speed."""

    def speed(self, task: Task, node: int) -> float:
        return 1.0


class Simulation:
    """One run of one scheduler over one workload on one cluster."""

    def __init__(
        self,
        table: NodeTable,
        tasks: Sequence[Task],
        scheduler: Scheduler,
        config: SimConfig = SimConfig(),
        speed: SpeedModel | None = None,
        observer: Observer | None = None,
        progress: ProgressFn | None = None,
        faults: FaultPlan | None = None,
        ticker: Ticker | None = None,
    ) -> None:
        ids = [t.id for t in tasks]
        if len(set(ids)) != len(ids):
            raise ValueError("task ids must be unique")
        self.table, self.tasks, self.scheduler, self.config = table, tasks, scheduler, config
        self.by_id = {t.id: t for t in tasks}
        self.speed = speed or UnitSpeed()
        self.observer = observer or GroundTruth()
        self._observer_sync = getattr(self.observer, "sync", None)
        self.progress = progress
        self.fleet = Fleet(table)
        self.queue = _PeekQueue()
        self.faults, self.ticker = faults, ticker
        self.fault_events: list[FaultEvent] = faults.events() if faults is not None else []
        self._next_fault = 0
        self.arrivals_left = len(tasks)
        self._retry_s = -math.inf
        self.recorder = Recorder(tasks, table.capacity.sum(axis=0))
        self.pending: dict[int, Task] = {}
        self.bindings: dict[int, Binding] = {}
        self.cycle_scheduled = False
        self.finished = 0

    def run(self) -> RunMetrics:
        """Run until no event is left; pending tasks then count as unscheduled."""
        wall0 = time.perf_counter()
        for t in self.tasks:
            self.queue.push(t.arrival_s, EventKind.ARRIVAL, t.id)
        handlers = {
            EventKind.ARRIVAL: self._arrive,
            EventKind.CYCLE: self._cycle,
            EventKind.START: self._start,
            EventKind.COMPLETE: self._complete,
            EventKind.DEPART: self._depart,
        }
        while self.queue:
            if self._run_hook():
                continue
            ev = self.queue.pop()
            self._sync(ev.time_s)
            self.recorder.advance(ev.time_s, self.fleet.allocated_total)
            handlers[ev.kind](ev.time_s, ev.task_id)
        for task_id in self.pending:
            self.recorder.set(task_id, Outcome.UNSCHEDULED)
        self._report_progress(force=True)
        wall = time.perf_counter() - wall0
        return self.recorder.summary(self.table.topology, wall, self.queue.processed)

    def _sync(self, now_s: float) -> None:
        """Let an observer that models reports record them before the fleet changes."""
        if self._observer_sync is not None:
            self._observer_sync(self.fleet, now_s)

    def _next_hook(self) -> tuple[float, bool]:
        """Time of the next fault event or tick, and whether it is a fault event."""
        fault_s = math.inf
        if self._next_fault < len(self.fault_events):
            fault_s = self.fault_events[self._next_fault].time_s
        tick_s = math.inf
        if self.ticker is not None and (self.pending or self.arrivals_left):
            tick_s = self.ticker.next_tick_s
        return (fault_s, True) if fault_s <= tick_s else (tick_s, False)

    def _run_hook(self) -> bool:
        """Run the next fault event or tick if it comes no later than the next event."""
        if not self.fault_events and self.ticker is None:
            return False
        time_s, is_fault = self._next_hook()
        if time_s > self.queue.peek_time():
            return False
        self._sync(time_s)
        self.recorder.advance(time_s, self.fleet.allocated_total)
        if is_fault:
            self._next_fault += 1
            self._apply_fault(self.fault_events[self._next_fault - 1])
        elif self.ticker is not None and self.ticker.tick(self.fleet, time_s):
            self._request_cycle(time_s)
        return True

    def _apply_fault(self, ev: FaultEvent) -> None:
        node = ev.node
        if ev.kind == FaultKind.FAIL:
            self.fleet.up[node] = False
            for task_id in [t for t, b in self.bindings.items() if b.node == node]:
                self.fleet.release(self.bindings.pop(task_id), self.by_id[task_id])
                self.recorder.set(task_id, Outcome.FAILED)
                self.recorder.killed += 1
                self._finish()
        elif ev.kind == FaultKind.RECOVER:
            self.fleet.up[node] = True
            self._request_cycle(ev.time_s)
        elif ev.kind == FaultKind.BURST_START:
            self.fleet.usage[node, CPU] += ev.cpu_milli
        else:
            self.fleet.usage[node, CPU] = max(0.0, self.fleet.usage[node, CPU] - ev.cpu_milli)
            self._request_cycle(ev.time_s)

    def _request_cycle(self, now_s: float) -> None:
        if self.pending and not self.cycle_scheduled:
            self.cycle_scheduled = True
            self.queue.push(now_s + self.config.cycle_interval_s, EventKind.CYCLE)

    def _arrive(self, now_s: float, task_id: int) -> None:
        self.pending[task_id] = self.by_id[task_id]
        self.arrivals_left -= 1
        if self.config.max_wait_s is not None:
            self.queue.push(now_s + self.config.max_wait_s, EventKind.DEPART, task_id)
        self._request_cycle(now_s)

    def _depart(self, now_s: float, task_id: int) -> None:
        if self.pending.pop(task_id, None) is not None:
            self.recorder.set(task_id, Outcome.UNSCHEDULED)
            self._finish()

    def _cycle(self, now_s: float, _: int) -> None:
        self.cycle_scheduled = False
        snapshot = self.observer.observe(self.fleet, now_s)
        t0 = time.perf_counter()
        decision = self.scheduler.decide(snapshot, list(self.pending.values()))
        self.recorder.decision_s.append(time.perf_counter() - t0)
        for key, value in decision.counters.items():
            self.recorder.counters[key] = self.recorder.counters.get(key, 0.0) + float(value)
        for binding in decision.bindings:
            self._bind(now_s, binding, snapshot)
        for task_id, status in decision.statuses.items():
            if status.code == Code.UNRESOLVABLE and self.pending.pop(task_id, None) is not None:
                self.recorder.set(task_id, Outcome.FAILED)
                self._finish()
        if self.config.record_fragmentation:
            self._sample_fragmentation()

    def _bind(self, now_s: float, binding: Binding, snapshot: ClusterSnapshot) -> None:
        task = self.pending.get(binding.task_id)
        if task is not None and 0 <= binding.node < len(self.table):
            self._check_placement(binding.node, snapshot)
        if task is None or self.fleet.check(binding, task):
            self.recorder.invalid_bindings += 1
            if self.faults is not None and task is not None and not self.fleet.up[binding.node]:
                self._bind_failed(now_s, binding.node)
            return
        del self.pending[task.id]
        self.fleet.bind(binding, task)
        self.bindings[task.id] = binding
        topo = self.table.topology
        node_site = int(self.table.site[binding.node])
        rtt_ms, transfer_s = 0.0, 0.0
        if task.data_origin:
            origin = topo.index(task.data_origin)
            rtt_ms = float(topo.rtt_ms[origin, node_site])
            if task.data_size_gb > 0 and origin != node_site:
                transfer_s = (
                    task.data_size_gb * 8000.0 / float(topo.bandwidth_mbps[origin, node_site])
                )
                self.recorder.transfer_usd += task.data_size_gb * float(
                    topo.usd_per_gb[origin, node_site]
                )
            if topo.sites[origin].jurisdiction != topo.sites[node_site].jurisdiction:
                self.recorder.compliance_usd += (
                    task.data_size_gb * self.config.compliance_usd_per_gb
                )
        self.recorder.bound(task.id, now_s, binding.node, rtt_ms)
        self.queue.push(now_s + transfer_s, EventKind.START, task.id)

    def _bind_failed(self, now_s: float, node: int) -> None:
        """A binding to a down node was not acknowledged: tell the observer, retry later."""
        feedback = getattr(self.observer, "bind_failed", None)
        if callable(feedback):
            feedback(node, now_s)
        retry_s = now_s + self.config.bind_retry_s
        if self._retry_s <= now_s:
            self._retry_s = retry_s
            self.queue.push(retry_s, EventKind.CYCLE)

    def _check_placement(self, node: int, snapshot: ClusterSnapshot) -> None:
        """Count a binding and whether ground truth makes it a mis-schedule (see module doc)."""
        cpu_cap = float(self.table.capacity[node, CPU])
        over = self.fleet.usage[node, CPU] > self.config.overload_cpu_pct / 100.0 * cpu_cap
        down = not self.fleet.up[node]
        self.recorder.placed(float(snapshot.staleness_s[node]), down or bool(over), down)

    def _start(self, now_s: float, task_id: int) -> None:
        if task_id not in self.bindings:  # killed by a node failure while its data moved
            return
        task, binding = self.by_id[task_id], self.bindings[task_id]
        self.recorder.start_s[self.recorder.pos[task_id]] = now_s
        runtime = task.work / max(self.speed.speed(task, binding.node), 1e-9)
        self.queue.push(now_s + runtime, EventKind.COMPLETE, task_id)

    def _complete(self, now_s: float, task_id: int) -> None:
        if task_id not in self.bindings:  # killed by a node failure
            return
        task, binding = self.by_id[task_id], self.bindings.pop(task_id)
        self.fleet.release(binding, task)
        i = self.recorder.pos[task_id]
        self.recorder.end_s[i] = now_s
        self.recorder.set(task_id, Outcome.COMPLETED)
        node_price = float(self.table.usd_per_hour[binding.node])
        cpu_share = task.request.cpu_milli / float(self.table.capacity[binding.node, 0])
        self.recorder.compute_usd += (
            node_price * cpu_share * float(now_s - self.recorder.bind_s[i]) / 3600
        )
        self._finish()
        self._request_cycle(now_s)

    def _finish(self) -> None:
        self.finished += 1
        self._report_progress()

    def _report_progress(self, force: bool = False) -> None:
        if self.progress is not None and (force or self.finished % 200 == 0):
            self.progress(self.finished, len(self.tasks))

    def _sample_fragmentation(self) -> None:
        requests = [t.request for t in self.pending.values() if t.request.gpu_count > 0]
        if not requests:
            return
        free = self.table.capacity - self.fleet.allocated
        self.recorder.frag_samples.append(
            gpu_fragmentation(free, self.fleet.gpu_free_milli, self.fleet.up, requests)
        )


__all__ = [
    "GroundTruth",
    "Observer",
    "SimConfig",
    "Simulation",
    "SpeedModel",
    "Ticker",
    "UnitSpeed",
]
