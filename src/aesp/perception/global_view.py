"""The global view: a topology graph fed by regional snapshots, and the scheduler's snapshot.

The graph (networkx) has one vertex per region (``region:R``), zone (``zone:Z``) and site
(``site:S``), ``contains`` edges region → zone → site, and ``link`` edges between sites carrying
``rtt_ms``, ``bandwidth_mbps`` and ``usd_per_gb``. Zone vertices carry the latest zone-wide CPU
utilisation from regional snapshots.

Per-node state (last values and last report time) comes from zone snapshots
(:meth:`GlobalView.ingest_snapshot`, minute granularity) or, fresher, straight from reports
(:meth:`GlobalView.ingest_report`). :meth:`GlobalView.cluster_snapshot` turns it into the
:class:`aesp.core.ClusterSnapshot` a scheduler decides on.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from aesp.core.resources import CPU, GPU, MEM, N_RESOURCES, FloatArray
from aesp.core.snapshot import ClusterSnapshot, NodeTable
from aesp.perception.schema import METRIC_NAMES, N_METRICS, AgentReport
from aesp.perception.zone_snapshot import ZoneSnapshot

_CPU_M = METRIC_NAMES.index("cpu_pct")
_USAGE_METRICS = (
    (CPU, METRIC_NAMES.index("cpu_pct")),
    (MEM, METRIC_NAMES.index("mem_pct")),
    (GPU, METRIC_NAMES.index("gpu_pct")),
)
_TEMP_M = METRIC_NAMES.index("temperature_c")


@dataclass(frozen=True, slots=True)
class Hotspot:
    """A zone that is busy or heating up. Units: percent, percentage points per minute."""

    zone: str
    cpu_pct: float
    rise_pct_per_min: float
    reasons: tuple[str, ...]


def topology_graph(table: NodeTable) -> nx.Graph:
    """The region/zone/site/link graph of a node table's topology (see module doc)."""
    graph = nx.Graph()
    for site in table.topology.sites:
        region, zone, s = f"region:{site.region}", f"zone:{site.zone}", f"site:{site.name}"
        graph.add_node(region, kind="region", name=site.region)
        graph.add_node(zone, kind="zone", name=site.zone, cpu_pct=float("nan"), updated_s=None)
        graph.add_node(s, kind="site", name=site.name, tier=site.tier)
        graph.add_edge(region, zone, kind="contains")
        graph.add_edge(zone, s, kind="contains")
    for link in table.topology.links:
        graph.add_edge(
            f"site:{link.a}",
            f"site:{link.b}",
            kind="link",
            rtt_ms=link.rtt_ms,
            bandwidth_mbps=link.bandwidth_mbps,
            usd_per_gb=link.usd_per_gb,
        )
    return graph


@dataclass
class GlobalView:
    """Fuses what the aggregators report into a graph and per-node state.

    Units: seconds for ``*_s``; ``hot_cpu_pct`` percent; ``rising_pct_per_min`` percentage
    points of zone CPU per minute, over the last ``trend_points`` snapshots of a zone.
    """

    table: NodeTable
    stale_after_s: float = 90.0
    """A node whose last report is older than this is marked down (3 missed steady reports)."""
    hot_cpu_pct: float = 80.0
    rising_pct_per_min: float = 10.0
    trend_points: int = 5
    graph: nx.Graph = field(init=False, repr=False)
    last_report_s: FloatArray = field(init=False, repr=False)
    """Shapes: ``(N,)``; NaN for a node never heard from."""
    values: FloatArray = field(init=False, repr=False)
    """Shapes: ``(N, M)``; the node's latest reported metrics, NaN where unknown."""
    _index: dict[str, int] = field(init=False, repr=False)
    _zone_history: dict[str, deque[tuple[float, float]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.graph = topology_graph(self.table)
        n = len(self.table)
        self.last_report_s = np.full(n, np.nan)
        self.values = np.full((n, N_METRICS), np.nan)
        self._index = {name: i for i, name in enumerate(self.table.names)}
        self._zone_history = {}

    def ingest_report(self, report: AgentReport) -> None:
        """Take a node's state straight from a report (ignored for unknown or older reports)."""
        self._update_node(report.node, report.time_s, report.metrics.vector())

    def ingest_snapshot(self, snapshot: ZoneSnapshot) -> None:
        """Take node states and the zone's utilisation from a regional snapshot."""
        for i, node in enumerate(snapshot.nodes):
            if snapshot.counts[i] > 0:
                self._update_node(node, float(snapshot.last_report_s[i]), snapshot.last[i])
        cpu = float(snapshot.zone_summary()[_CPU_M, 0])
        history = self._zone_history.setdefault(snapshot.zone, deque(maxlen=self.trend_points))
        history.append((snapshot.end_s, cpu))
        key = f"zone:{snapshot.zone}"
        if key in self.graph:
            self.graph.nodes[key].update(cpu_pct=cpu, updated_s=snapshot.end_s)

    def _update_node(self, node: str, time_s: float, values: FloatArray) -> None:
        i = self._index.get(node)
        if i is None or time_s < np.nan_to_num(self.last_report_s[i], nan=-np.inf):
            return
        self.last_report_s[i] = time_s
        self.values[i] = values

    def shortest_rtt_path(self, a: str, b: str) -> tuple[list[str], float]:
        """Lowest-RTT route between two sites over link edges (Dijkstra).

        Returns:
            The site names along the path and its total RTT in ms.

        Raises:
            KeyError: unknown site.
            networkx.NetworkXNoPath, networkx.NodeNotFound: no route of links between them.
        """
        self.table.topology.index(a), self.table.topology.index(b)  # KeyError names the sites
        if a == b:
            return [a], 0.0
        links = self.graph.edge_subgraph(
            (u, v) for u, v, k in self.graph.edges(data="kind") if k == "link"
        )
        path = nx.dijkstra_path(links, f"site:{a}", f"site:{b}", weight="rtt_ms")
        rtt = nx.path_weight(links, path, weight="rtt_ms")
        return [p.removeprefix("site:") for p in path], float(rtt)

    def hotspots(self) -> list[Hotspot]:
        """Zones whose CPU is at least ``hot_cpu_pct`` or rising at ``rising_pct_per_min``."""
        out = []
        for zone, history in sorted(self._zone_history.items()):
            cpu, rise = history[-1][1], _slope_per_min(history)
            reasons = tuple(
                r
                for r, hit in (
                    ("hot", cpu >= self.hot_cpu_pct),
                    ("rising", rise >= self.rising_pct_per_min),
                )
                if hit
            )
            if reasons:
                out.append(Hotspot(zone, cpu, rise, reasons))
        return out

    def staleness_s(self, now_s: float) -> FloatArray:
        """``(N,)`` seconds since each node's last report; infinite if never heard from."""
        return np.where(np.isnan(self.last_report_s), np.inf, now_s - self.last_report_s)

    def cluster_snapshot(
        self, now_s: float, allocated: FloatArray, gpu_free_milli: FloatArray
    ) -> ClusterSnapshot:
        """The scheduler's view at ``now_s``.

        ``usage`` is each reported percentage times capacity (cpu_pct → CPU, mem_pct → memory,
        gpu_pct → GPU), 0 where unknown; ``up`` is False when the last report is older than
        ``stale_after_s`` or there was none; ``temperature_c`` NaN where unknown. ``allocated``
        and ``gpu_free_milli`` are the control plane's own bookkeeping of bindings.

        Shapes:
            allocated: ``(N, R)``; gpu_free_milli: ``(N, G)`` as in :class:`ClusterSnapshot`.
        """
        staleness = self.staleness_s(now_s)
        usage = np.zeros((len(self.table), N_RESOURCES))
        for r, m in _USAGE_METRICS:
            usage[:, r] = np.nan_to_num(self.values[:, m]) / 100.0 * self.table.capacity[:, r]
        return ClusterSnapshot(
            table=self.table,
            time_s=now_s,
            allocated=np.array(allocated, np.float64),
            usage=usage,
            gpu_free_milli=np.array(gpu_free_milli, np.float64),
            up=staleness <= self.stale_after_s,
            staleness_s=staleness,
            temperature_c=self.values[:, _TEMP_M].copy(),
        )


def _slope_per_min(history: deque[tuple[float, float]]) -> float:
    """Least-squares slope of (time, cpu) points, percentage points per minute; 0 if < 2."""
    pts = np.array([p for p in history if np.isfinite(p[1])])
    if len(pts) < 2 or np.ptp(pts[:, 0]) == 0:
        return 0.0
    return float(np.polyfit(pts[:, 0] / 60.0, pts[:, 1], 1)[0])
