"""Turning a scenario configuration into a cluster and a workload."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from aesp.config import ScenarioConfig
from aesp.core import Link, Node, NodeTable, Site, Task, Topology
from aesp.sim.workload import generate_workload


def build_topology(config: ScenarioConfig) -> Topology:
    sites = [Site(s.name, s.region, s.zone, s.tier, s.jurisdiction) for s in config.sites]
    links = [
        Link(link.a, link.b, link.rtt_ms, link.bandwidth_mbps, link.usd_per_gb)
        for link in config.links
    ]
    return Topology.build(sites, links)


def build_nodes(config: ScenarioConfig) -> list[Node]:
    """One node per pool member, named ``<pool>-<index>``."""
    return [
        Node(
            name=f"{p.name}-{i:03d}",
            site=p.site,
            cpu_milli=p.cpu_milli,
            mem_mib=p.mem_mib,
            arch=p.arch,
            gpu_count=p.gpu_count,
            gpu_model=p.gpu_model,
            accel_kind=p.accel_kind,  # type: ignore[arg-type]
            accel_model=p.accel_model,
            usd_per_hour=p.usd_per_hour,
        )
        for p in config.node_pools
        for i in range(p.count)
    ]


@dataclass(frozen=True)
class Materialised:
    """A scenario made concrete for one seed."""

    config: ScenarioConfig
    seed: int
    table: NodeTable
    tasks: tuple[Task, ...]


def materialise(config: ScenarioConfig, seed: int | None = None) -> Materialised:
    """The cluster and the seeded workload of a scenario (the scenario's seed by default)."""
    s = config.seed if seed is None else seed
    table = NodeTable.build(build_nodes(config), build_topology(config))
    tasks = generate_workload(config, np.random.default_rng(s))
    return Materialised(config, s, table, tuple(tasks))
