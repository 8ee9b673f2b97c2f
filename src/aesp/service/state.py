"""The control plane's state and the one place it turns that state into a ``ClusterSnapshot``.

The service is an adapter: it keeps reports (perception's :class:`MetricStore`), its registry of
nodes and bindings, and builds the snapshot the decision core decides on; it never scores or
filters itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from aesp.core import (
    GPU,
    MILLI_PER_GPU,
    N_RESOURCES,
    ClusterSnapshot,
    Decision,
    Link,
    Node,
    NodeTable,
    Site,
    Task,
    Topology,
)
from aesp.perception.global_view import GlobalView
from aesp.perception.schema import AgentReport, MetricSample
from aesp.perception.store import MetricStore
from aesp.placement import FrameworkScheduler, build_scheduler
from aesp.service.registry import BindingRecord, DecisionRecord, RegisteredNode, Registry
from aesp.service.settings import ServiceSettings

LatestMetrics = Mapping[str, tuple[float, MetricSample]]
"""Per node name: (time_s of the reading, the reading)."""
MetricsSource = Callable[[], LatestMetrics]
STARTUP_WINDOW_S = 3600.0
"""How far back the latest-report cache is filled from the store at start."""
_TABLE_CACHE = 8


def site_from_settings(name: str, region: str = "", zone: str = "", **kw: str) -> Site:
    return Site(name=name, region=region or name, zone=zone or name, **kw)  # type: ignore[arg-type]


def build_topology(sites: Sequence[Site], links: Iterable[Link], default: Link) -> Topology:
    """Sites with the configured links among them; components no path joins get ``default``.

    ``default`` is a template (its ``a``/``b`` are ignored) whose RTT and bandwidth come from the
    configuration: an explicit assumption, not a measurement.
    """
    names = {s.name for s in sites}
    kept = [lk for lk in links if lk.a in names and lk.b in names]
    parent = {n: n for n in names}

    def root(n: str) -> str:
        while parent[n] != n:
            n = parent[n]
        return n

    for lk in kept:
        parent[root(lk.a)] = root(lk.b)
    roots = sorted({root(n) for n in names})
    extra = [replace(default, a=roots[0], b=r) for r in roots[1:]]
    return Topology.build(sites, [*kept, *extra])


@dataclass
class ControlPlane:
    """Reports, registry, schedulers and the snapshot builder behind every endpoint."""

    settings: ServiceSettings
    clock: Callable[[], float] = time.time
    metrics_source: MetricsSource | None = None
    """Alternative usage source (e.g. PromQL); None means the latest agent reports."""
    store: MetricStore = field(init=False)
    registry: Registry = field(init=False)
    latest: dict[str, AgentReport] = field(init=False, default_factory=dict)
    _schedulers: dict[str, FrameworkScheduler] = field(init=False, default_factory=dict)
    _tables: dict[tuple[int, tuple[str, ...]], NodeTable] = field(init=False, default_factory=dict)
    """NodeTables by (registry version, node names): rebuilt only when nodes or sites change."""

    def __post_init__(self) -> None:
        self.store = MetricStore(self.settings.db_path)
        # a second connection to the same file; :memory: gives each its own database
        self.registry = Registry(self.settings.db_path)
        now = self.clock()
        for report in self.store.query_reports(now - STARTUP_WINDOW_S, np.inf):
            self._remember(report)
        self._register_configured(now)

    def close(self) -> None:
        self.store.close()
        self.registry.close()

    def _register_configured(self, now: float) -> None:
        s = self.settings
        sites = [site_from_settings(**x.model_dump()) for x in s.sites]
        known = {x.name for x in sites} | set(self.registry.sites())
        nodes = []
        for n in s.nodes:
            if n.site not in known:
                sites.append(site_from_settings(n.site))
                known.add(n.site)
            nodes.append(RegisteredNode(_node(n.model_dump()), True, "config", now))
        self.registry.upsert_nodes(nodes, sites)

    # ----------------------------------------------------------------- reports

    def ingest(self, reports: Sequence[AgentReport]) -> int:
        """Store a batch in one transaction; returns how many were new (the rest duplicates)."""
        new = self.store.insert_reports(reports)
        for report in reports:
            self._remember(report)
        return new

    def _remember(self, report: AgentReport) -> None:
        old = self.latest.get(report.node)
        if old is None or report.time_s >= old.time_s:
            self.latest[report.node] = report

    def latest_metrics(self) -> LatestMetrics:
        if self.metrics_source is not None:
            return self.metrics_source()
        return {n: (r.time_s, r.metrics) for n, r in self.latest.items()}

    # ----------------------------------------------------------------- nodes

    def register(self, nodes: Sequence[RegisteredNode], sites: Sequence[Site]) -> None:
        """Add or update nodes; sites they name that are unknown are created as their own zone."""
        known = self.registry.sites()
        new_sites = {s.name: s for s in sites}
        for r in nodes:
            if r.node.site not in known and r.node.site not in new_sites:
                new_sites[r.node.site] = site_from_settings(r.node.site)
        self.registry.upsert_nodes(nodes, new_sites.values())

    def topology(self, site_names: Iterable[str]) -> Topology:
        all_sites = self.registry.sites()
        wanted = sorted(set(site_names))
        links = [Link(**x.model_dump()) for x in self.settings.links]
        default = Link("", "", self.settings.default_link_rtt_ms,
                       self.settings.default_link_bandwidth_mbps)
        return build_topology([all_sites[n] for n in wanted], links, default)

    def snapshot(self, names: Sequence[str] | None = None) -> ClusterSnapshot:
        """The cluster (or the named nodes of it) as the decision core sees it now.

        Usage and staleness come from the latest reports (or the alternative source), allocation
        and GPU shares from the service's bindings, ``up`` from report freshness and readiness.

        Raises:
            KeyError: a named node is not registered. ValueError: no nodes.
        """
        registered = self.registry.nodes()
        chosen = [registered[n] for n in (names if names is not None else registered)]
        table = self.node_table(chosen)
        view = GlobalView(table, stale_after_s=self.settings.stale_after_s)
        latest = self.latest_metrics()
        for r in chosen:
            if r.node.name in latest:
                t, sample = latest[r.node.name]
                view.ingest_report(
                    AgentReport(agent_id="-", node=r.node.name, seq=0, time_s=t, metrics=sample)
                )
        allocated, gpu_free = self._allocation(table)
        snap = view.cluster_snapshot(self.clock(), allocated, gpu_free)
        never = np.isnan(view.last_report_s)
        up = (snap.up | (never & self.settings.unreported_nodes_up)) & np.array(
            [r.ready for r in chosen]
        )
        return replace(snap, up=up)

    def node_table(self, chosen: Sequence[RegisteredNode]) -> NodeTable:
        """The NodeTable of these registered nodes, cached until the registry changes."""
        key = (self.registry.version, tuple(r.node.name for r in chosen))
        table = self._tables.get(key)
        if table is None:
            table = NodeTable.build([r.node for r in chosen], self.topology(r.node.site for r in chosen))
            if len(self._tables) >= _TABLE_CACHE:
                self._tables.pop(next(iter(self._tables)))
            self._tables[key] = table
        return table

    def _allocation(self, table: NodeTable) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
        index = {n: i for i, n in enumerate(table.names)}
        allocated = np.zeros((len(table), N_RESOURCES))
        gpu_free = np.where(table.gpu_present, float(MILLI_PER_GPU), 0.0)
        for b in self.registry.bindings():
            i = index.get(b.node)
            if i is None:
                continue
            allocated[i] += b.request.vector()
            for g in b.gpus:
                if g < gpu_free.shape[1]:
                    gpu_free[i, g] -= b.request.gpu_milli
        allocated[:, GPU] = np.minimum(allocated[:, GPU], table.capacity[:, GPU])
        return allocated, np.maximum(gpu_free, 0.0)

    # ----------------------------------------------------------------- decisions

    def scheduler(self, profile: str | None = None) -> FrameworkScheduler:
        """The cached scheduler of a profile (kept, so kube's rotating start index persists).

        Raises:
            aesp.placement.ProfileError, ValueError: unknown or bad profile.
        """
        name = profile or self.settings.profile
        if name not in self._schedulers:
            self._schedulers[name] = build_scheduler(name, self.settings.seed)
        return self._schedulers[name]

    def schedule(
        self, tasks: Sequence[Task], profile: str | None, dry_run: bool = False
    ) -> tuple[ClusterSnapshot, Decision]:
        """Run the same ``decide()`` as the simulator and record its bindings.

        Raises:
            ValueError: no nodes registered, or a bad profile.
        """
        snap = self.snapshot()
        decision = self.scheduler(profile).decide(snap, tasks)
        if not dry_run:
            self._record(snap, tasks, decision)
        return snap, decision

    def _record(self, snap: ClusterSnapshot, tasks: Sequence[Task], decision: Decision) -> None:
        now, by_id, names = self.clock(), {t.id: t for t in tasks}, snap.table.names
        records = [
            BindingRecord(by_id[b.task_id].name, names[b.node], by_id[b.task_id].request,
                          b.gpus, now, "schedule")
            for b in decision.bindings
        ]
        log = [DecisionRecord(now, "schedule", r.task_key, r.node, "bound", "") for r in records]
        log += [
            DecisionRecord(now, "schedule", by_id[i].name, None, s.code.name.lower(),
                           "; ".join((s.plugin, *s.reasons)).strip("; "))
            for i, s in decision.statuses.items()
        ]
        self.registry.add_bindings(records, log)
        self.registry.prune_decisions(self.settings.recent_decisions * 10)


def _node(spec: Mapping[str, object]) -> Node:
    return Node(**spec)  # type: ignore[arg-type]
