"""Fluent builders for tests: nodes, tasks, clusters and snapshots in one readable line.

Examples:
    >>> node = make_node("n1").cpu(4000).mem(8192).gpus(2, "T4").site("s").build()
    >>> task = make_task(1).cpu(500).mem(512).gpu(1, 500).build()
    >>> table = cluster([node])
    >>> snap = snapshot(table, allocated=[[1000, 2048, 500]], gpu_free=[[500, 1000]])

Builders are mutable and return ``self`` from every setter; :meth:`build` makes the frozen
core object, so a builder can be reused to make variants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from aesp.core import (
    MILLI_PER_GPU,
    N_RESOURCES,
    AcceleratorKind,
    ClusterSnapshot,
    Link,
    Node,
    NodeTable,
    Request,
    Site,
    Task,
    TaskClass,
    Tier,
    Topology,
)
from aesp.core.resources import FloatArray

DEFAULT_SITE = "default"

ArrayLike = Sequence[float] | Sequence[Sequence[float]] | np.ndarray  # type: ignore[type-arg]


@dataclass
class NodeBuilder:
    """Builds a :class:`aesp.core.Node`; defaults: 4 cores, 8 GiB, x86_64, no GPU."""

    _name: str
    _site: str = DEFAULT_SITE
    _cpu_milli: float = 4000.0
    _mem_mib: float = 8192.0
    _arch: str = "x86_64"
    _gpu_count: int = 0
    _gpu_model: str = ""
    _accel_kind: AcceleratorKind = "none"
    _accel_model: str = ""
    _usd_per_hour: float = 0.0

    def cpu(self, milli: float) -> NodeBuilder:
        """CPU capacity in millicores."""
        self._cpu_milli = milli
        return self

    def mem(self, mib: float) -> NodeBuilder:
        """Memory capacity in MiB."""
        self._mem_mib = mib
        return self

    def gpus(self, count: int, model: str = "T4") -> NodeBuilder:
        """``count`` whole GPUs of ``model``; sets the accelerator kind to ``gpu``."""
        self._gpu_count, self._gpu_model = count, model if count else ""
        self._accel_kind = "gpu" if count else "none"
        return self

    def site(self, name: str) -> NodeBuilder:
        self._site = name
        return self

    def arch(self, arch: str) -> NodeBuilder:
        """CPU architecture, one of :data:`aesp.core.ARCHES`."""
        self._arch = arch
        return self

    def accel(self, kind: AcceleratorKind, model: str = "") -> NodeBuilder:
        """A non-GPU accelerator (``dpu``, ``npu``)."""
        self._accel_kind, self._accel_model = kind, model
        return self

    def price(self, usd_per_hour: float) -> NodeBuilder:
        self._usd_per_hour = usd_per_hour
        return self

    def build(self) -> Node:
        return Node(
            name=self._name, site=self._site, cpu_milli=self._cpu_milli, mem_mib=self._mem_mib,
            arch=self._arch, gpu_count=self._gpu_count, gpu_model=self._gpu_model,
            accel_kind=self._accel_kind, accel_model=self._accel_model,
            usd_per_hour=self._usd_per_hour,
        )


@dataclass
class TaskBuilder:
    """Builds a :class:`aesp.core.Task`; defaults: 1 core, 1 GiB, no GPU, arrives at 0, 60 s."""

    _id: int
    _name: str = ""
    _class: TaskClass = "batch"
    _cpu_milli: float = 1000.0
    _mem_mib: float = 1024.0
    _gpu_count: int = 0
    _gpu_milli: int = 0
    _arrival_s: float = 0.0
    _work: float = 60.0
    _gpu_models: tuple[str, ...] = ()
    _arches: tuple[str, ...] = ()
    _jurisdictions: tuple[str, ...] = ()
    _priority: int = 0
    _slo_ms: float | None = None
    _origin: str = ""
    _data_gb: float = 0.0
    _usage: tuple[float, float] = field(default=(1.0, 1.0))

    def cpu(self, milli: float) -> TaskBuilder:
        """CPU request in millicores."""
        self._cpu_milli = milli
        return self

    def mem(self, mib: float) -> TaskBuilder:
        """Memory request in MiB."""
        self._mem_mib = mib
        return self

    def gpu(self, count: int, milli: int = MILLI_PER_GPU) -> TaskBuilder:
        """``count`` GPUs with ``milli`` milli-GPUs of each (fractional only for one GPU)."""
        self._gpu_count, self._gpu_milli = count, milli if count else 0
        return self

    def arrival(self, s: float) -> TaskBuilder:
        self._arrival_s = s
        return self

    def work(self, s: float) -> TaskBuilder:
        """Run time at reference speed, seconds."""
        self._work = s
        return self

    def kind(self, task_class: TaskClass) -> TaskBuilder:
        self._class = task_class
        return self

    def gpu_models(self, *models: str) -> TaskBuilder:
        self._gpu_models = models
        return self

    def arches(self, *arches: str) -> TaskBuilder:
        self._arches = arches
        return self

    def jurisdictions(self, *areas: str) -> TaskBuilder:
        self._jurisdictions = areas
        return self

    def priority(self, p: int) -> TaskBuilder:
        self._priority = p
        return self

    def slo(self, ms: float) -> TaskBuilder:
        self._slo_ms = ms
        return self

    def origin(self, site: str, data_gb: float = 0.0) -> TaskBuilder:
        self._origin, self._data_gb = site, data_gb
        return self

    def usage(self, cpu_ratio: float, mem_ratio: float) -> TaskBuilder:
        """Fraction of the request the task really uses."""
        self._usage = (cpu_ratio, mem_ratio)
        return self

    def build(self) -> Task:
        return Task(
            id=self._id, name=self._name or f"t{self._id}", task_class=self._class,
            request=Request(self._cpu_milli, self._mem_mib, self._gpu_count, self._gpu_milli),
            arrival_s=self._arrival_s, work=self._work, gpu_models=self._gpu_models,
            arches=self._arches, latency_slo_ms=self._slo_ms, data_origin=self._origin,
            data_size_gb=self._data_gb, allowed_jurisdictions=self._jurisdictions,
            priority=self._priority, cpu_usage_ratio=self._usage[0],
            mem_usage_ratio=self._usage[1],
        )


def make_node(name: str = "n0") -> NodeBuilder:
    """Start a node builder: ``make_node("n1").cpu(4000).mem(8192).build()``."""
    return NodeBuilder(name)


def make_task(task_id: int = 0) -> TaskBuilder:
    """Start a task builder: ``make_task(1).cpu(500).mem(512).gpu(1, 500).build()``."""
    return TaskBuilder(task_id)


def make_site(
    name: str, jurisdiction: str = "", tier: Tier = "cloud", region: str = ""
) -> Site:
    """A site whose region and zone default to its name."""
    return Site(name=name, region=region or name, zone=name, tier=tier, jurisdiction=jurisdiction)


def chain_topology(
    site_names: Sequence[str], rtt_ms: float = 1.0, bandwidth_mbps: float = 1000.0
) -> Topology:
    """Sites in a line ``s0 - s1 - ...`` with identical links (connected, as required)."""
    sites = [make_site(n) for n in site_names]
    links = [
        Link(a, b, rtt_ms, bandwidth_mbps)
        for a, b in pairwise(site_names)
    ]
    return Topology.build(sites, links)


def cluster(nodes: Sequence[Node | NodeBuilder], topology: Topology | None = None) -> NodeTable:
    """A :class:`NodeTable` of ``nodes`` (builders are built).

    Without a topology, the nodes' sites (in order of first appearance) are joined in a chain
    of 1 ms links, so a one-site cluster needs no topology at all.
    """
    built = [n.build() if isinstance(n, NodeBuilder) else n for n in nodes]
    if topology is None:
        topology = chain_topology(list(dict.fromkeys(n.site for n in built)))
    return NodeTable.build(built, topology)


def _rows(value: ArrayLike | None, default: FloatArray) -> FloatArray:
    if value is None:
        return default
    return np.array(value, np.float64).reshape(default.shape)


def snapshot(
    table: NodeTable,
    *,
    allocated: ArrayLike | None = None,
    usage: ArrayLike | None = None,
    gpu_free: ArrayLike | None = None,
    up: Sequence[bool] | None = None,
    staleness_s: Sequence[float] | None = None,
    time_s: float = 0.0,
) -> ClusterSnapshot:
    """A :class:`ClusterSnapshot` of ``table`` with the given state; the rest is idle.

    Shapes: allocated, usage ``(N, 3)``; gpu_free ``(N, G)`` milli-GPUs; up, staleness_s ``(N,)``.
    Without ``gpu_free``, every present GPU is fully free (even when ``allocated`` names GPU
    milli: pass both to keep them consistent). Without ``usage``, usage equals ``allocated``.
    """
    n = len(table)
    alloc = _rows(allocated, np.zeros((n, N_RESOURCES)))
    full = np.where(table.gpu_present, float(MILLI_PER_GPU), 0.0)
    return ClusterSnapshot(
        table=table,
        time_s=time_s,
        allocated=alloc,
        usage=_rows(usage, alloc.copy()),
        gpu_free_milli=_rows(gpu_free, full),
        up=np.ones(n, np.bool_) if up is None else np.array(up, np.bool_),
        staleness_s=np.zeros(n) if staleness_s is None else np.array(staleness_s, np.float64),
        temperature_c=np.full(n, np.nan),
    )


__all__ = [
    "DEFAULT_SITE",
    "NodeBuilder",
    "TaskBuilder",
    "chain_topology",
    "cluster",
    "make_node",
    "make_site",
    "make_task",
    "snapshot",
]
