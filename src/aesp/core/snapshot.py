"""The immutable, struct-of-arrays view of a cluster that every scheduler decides on.

A :class:`NodeTable` holds what does not change during a run (names, capacities, codes of
categorical attributes, locations); a :class:`ClusterSnapshot` adds the state at one instant
(allocations, measured usage, per-GPU free shares, liveness, staleness). Arrays are read-only so
that a scheduler can never change the state it was shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from aesp.core.cluster import ACCELERATOR_KINDS, ARCHES, Node
from aesp.core.resources import (
    MILLI_PER_GPU,
    N_RESOURCES,
    BoolArray,
    FloatArray,
    IntArray,
)
from aesp.core.topology import TIERS, Topology


def _frozen(a: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    a.setflags(write=False)
    return a


def _codes(values: Sequence[str], vocab: Sequence[str]) -> IntArray:
    lookup = {v: i for i, v in enumerate(vocab)}
    return _frozen(np.array([lookup[v] for v in values], dtype=np.int64))


@dataclass(frozen=True)
class NodeTable:
    """Static node attributes as arrays, built once per cluster.

    Shapes:
        capacity: ``(N, R)`` in :data:`aesp.core.resources.RESOURCE_NAMES` order.
        gpu_present: ``(N, G)``, True for the GPUs a node has; ``G`` is the largest GPU count.
        arch, gpu_model, accel_kind, site, tier: ``(N,)`` integer codes into the vocabularies.
        usd_per_hour: ``(N,)``.
    """

    nodes: tuple[Node, ...]
    topology: Topology
    capacity: FloatArray = field(repr=False)
    gpu_present: BoolArray = field(repr=False)
    arch: IntArray = field(repr=False)
    gpu_model: IntArray = field(repr=False)
    gpu_models: tuple[str, ...] = ()
    accel_kind: IntArray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))
    site: IntArray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))
    tier: IntArray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))
    usd_per_hour: FloatArray = field(repr=False, default_factory=lambda: np.zeros(0))

    @classmethod
    def build(cls, nodes: Sequence[Node], topology: Topology) -> NodeTable:
        """Index nodes into arrays.

        Raises:
            ValueError: no nodes, duplicate names, or a node on a site the topology lacks.
        """
        if not nodes:
            raise ValueError("a cluster needs at least one node")
        names = [n.name for n in nodes]
        if len(set(names)) != len(names):
            raise ValueError("duplicate node names")
        site_index = {s.name: i for i, s in enumerate(topology.sites)}
        missing = sorted({n.site for n in nodes} - site_index.keys())
        if missing:
            raise ValueError(f"nodes on sites missing from the topology: {missing}")
        capacity = np.array(
            [[n.cpu_milli, n.mem_mib, n.gpu_count * MILLI_PER_GPU] for n in nodes], np.float64
        ).reshape(len(nodes), N_RESOURCES)
        g = max(1, max(n.gpu_count for n in nodes))
        present = np.arange(g)[None, :] < np.array([n.gpu_count for n in nodes])[:, None]
        models = tuple(sorted({n.gpu_model for n in nodes if n.gpu_model}))
        site = np.array([site_index[n.site] for n in nodes], np.int64)
        site_tier = np.array([TIERS.index(s.tier) for s in topology.sites], np.int64)
        return cls(
            nodes=tuple(nodes),
            topology=topology,
            capacity=_frozen(capacity),
            gpu_present=_frozen(present),
            arch=_codes([n.arch for n in nodes], ARCHES),
            gpu_model=_codes([n.gpu_model for n in nodes], ("", *models)),
            gpu_models=("", *models),
            accel_kind=_codes([n.accel_kind for n in nodes], ACCELERATOR_KINDS),
            site=_frozen(site),
            tier=_frozen(site_tier[site]),
            usd_per_hour=_frozen(np.array([n.usd_per_hour for n in nodes], np.float64)),
        )

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n.name for n in self.nodes)

    def gpu_model_code(self, model: str) -> int:
        """Code of a GPU model, or -1 when no node has it."""
        try:
            return self.gpu_models.index(model)
        except ValueError:
            return -1


@dataclass(frozen=True)
class ClusterSnapshot:
    """The cluster as a scheduler sees it at ``time_s``.

    Shapes:
        allocated: ``(N, R)`` sum of the requests of tasks bound to each node.
        usage: ``(N, R)`` measured usage as last reported (may be stale; see ``staleness_s``).
        gpu_free_milli: ``(N, G)`` free share of each GPU in milli-GPUs; 0 where absent.
        up: ``(N,)`` whether the node is believed to be up and schedulable.
        staleness_s: ``(N,)`` age of the usage information, seconds.
        temperature_c: ``(N,)`` last reported temperature, NaN when unknown.
    """

    table: NodeTable
    time_s: float
    allocated: FloatArray = field(repr=False)
    usage: FloatArray = field(repr=False)
    gpu_free_milli: FloatArray = field(repr=False)
    up: BoolArray = field(repr=False)
    staleness_s: FloatArray = field(repr=False)
    temperature_c: FloatArray = field(repr=False)

    def __post_init__(self) -> None:
        n, g = self.table.gpu_present.shape
        shapes = {
            "allocated": (self.allocated, (n, N_RESOURCES)),
            "usage": (self.usage, (n, N_RESOURCES)),
            "gpu_free_milli": (self.gpu_free_milli, (n, g)),
            "up": (self.up, (n,)),
            "staleness_s": (self.staleness_s, (n,)),
            "temperature_c": (self.temperature_c, (n,)),
        }
        for name, (array, shape) in shapes.items():
            if array.shape != shape:
                raise ValueError(f"snapshot {name} has shape {array.shape}, expected {shape}")
            array.setflags(write=False)

    @classmethod
    def empty(cls, table: NodeTable, time_s: float = 0.0) -> ClusterSnapshot:
        """An idle cluster: nothing allocated, every node up, usage fresh and zero."""
        n = len(table)
        return cls(
            table=table,
            time_s=time_s,
            allocated=np.zeros((n, N_RESOURCES)),
            usage=np.zeros((n, N_RESOURCES)),
            gpu_free_milli=np.where(table.gpu_present, float(MILLI_PER_GPU), 0.0),
            up=np.ones(n, np.bool_),
            staleness_s=np.zeros(n),
            temperature_c=np.full(n, np.nan),
        )

    @property
    def capacity(self) -> FloatArray:
        return self.table.capacity

    @property
    def free(self) -> FloatArray:
        """``(N, R)`` capacity minus allocation."""
        return self.table.capacity - self.allocated

    @property
    def topology(self) -> Topology:
        return self.table.topology

    def __len__(self) -> int:
        return len(self.table)
