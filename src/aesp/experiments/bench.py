"""The placement benchmark: decision throughput and latency on synthetic heterogeneous clusters.

Each profile places the same pods on the same cluster, fresh, in arrival order. A sequential
profile is asked one pod per ``decide()`` call, as kube-scheduler's queue does; a batch profile
(``solver: hungarian``) is handed up to its ``max_batch`` pods per call. Throughput is pods
placed per second of time spent inside ``decide()``; latency is per ``decide()`` call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from aesp.core import Link, Node, NodeTable, Request, Scheduler, Site, Task, Topology
from aesp.placement import load_profile
from aesp.sim.fleet import Fleet

NODE_TYPES = (
    # (arch, cpu_milli, mem_mib, gpus, gpu model, accelerator, weight)
    ("x86_64", 64000, 262144, 0, "", "none", 0.35),
    ("arm64", 64000, 262144, 0, "", "none", 0.2),
    ("x86_64", 96000, 1048576, 8, "A100", "gpu", 0.1),
    ("x86_64", 64000, 524288, 8, "V100M32", "gpu", 0.1),
    ("x86_64", 48000, 196608, 4, "T4", "gpu", 0.15),
    ("x86_64", 64000, 524288, 4, "A10", "gpu", 0.1),
)


def synthetic_cluster(n_nodes: int, seed: int = 0, n_sites: int = 4) -> NodeTable:
    """``n_nodes`` nodes of mixed CPU and GPU types over ``n_sites`` sites in two regions."""
    rng = np.random.default_rng(seed)
    sites = [
        Site(f"site-{i}", f"region-{i % 2}", f"zone-{i}", "cloud", ("EU", "US")[i % 2])
        for i in range(n_sites)
    ]
    links = [
        (sites[i].name, sites[j].name, 2.0 if i % 2 == j % 2 else 80.0)
        for i in range(n_sites)
        for j in range(i + 1, n_sites)
    ]
    topo = Topology.build(sites, [Link(a, b, rtt, 10000.0, 0.02) for a, b, rtt in links])
    weights = np.array([t[-1] for t in NODE_TYPES])
    kinds = rng.choice(len(NODE_TYPES), size=n_nodes, p=weights / weights.sum())
    nodes = []
    for i, k in enumerate(kinds):
        arch, cpu, mem, gpus, model, accel, _ = NODE_TYPES[k]
        nodes.append(
            Node(
                f"node-{i:05d}",
                sites[i % n_sites].name,
                cpu,
                mem,
                arch,
                gpus,
                model,
                accel,  # type: ignore[arg-type]
                "",
                1.0,
            )
        )
    return NodeTable.build(nodes, topo)


def synthetic_pods(n_pods: int, table: NodeTable, seed: int = 0) -> list[Task]:
    """A mix like the OpenB trace: CPU pods, fractional-GPU pods and multi-GPU pods."""
    rng = np.random.default_rng([seed, 1])
    sites = table.topology.site_names
    tasks = []
    for i in range(n_pods):
        u = rng.uniform()
        if u < 0.4:
            req, cls = (
                Request(
                    float(rng.choice([1000, 2000, 4000, 8000])),
                    float(rng.choice([2048, 4096, 16384])),
                ),
                "analytics",
            )
        elif u < 0.75:
            req, cls = Request(4000.0, 16384.0, 1, int(rng.choice([250, 500, 1000]))), "inference"
        else:
            g = int(rng.choice([1, 2, 4, 8], p=[0.4, 0.3, 0.2, 0.1]))
            req, cls = Request(8000.0 * g, 32768.0 * g, g, 1000), "training"
        tasks.append(
            Task(
                i,
                f"pod-{i}",
                cls,  # type: ignore[arg-type]
                req,
                0.0,
                3600.0,
                data_origin=str(rng.choice(sites)),
                data_size_gb=float(rng.uniform(0, 20)),
            )
        )
    return tasks


@dataclass(frozen=True)
class BenchResult:
    """One profile's throughput and latency."""

    pods_per_s: float
    p99_decision_ms: float
    p50_decision_ms: float
    placed: int
    calls: int
    decide_s: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def run_profile(
    table: NodeTable, pods: Sequence[Task], scheduler: Scheduler, batch: int
) -> BenchResult:
    """Place ``pods`` in order, ``batch`` per ``decide()`` call, on a fresh fleet."""
    fleet = Fleet(table)
    latencies, placed = [], 0
    by_id = {t.id: t for t in pods}
    for start in range(0, len(pods), batch):
        snapshot = fleet.snapshot(0.0)
        t0 = time.perf_counter()
        decision = scheduler.decide(snapshot, pods[start : start + batch])
        latencies.append(time.perf_counter() - t0)
        for b in decision.bindings:
            fleet.bind(b, by_id[b.task_id])
            placed += 1
    total = float(sum(latencies))
    ms = np.array(latencies) * 1000.0
    return BenchResult(
        pods_per_s=placed / total if total > 0 else 0.0,
        p99_decision_ms=float(np.percentile(ms, 99)),
        p50_decision_ms=float(np.percentile(ms, 50)),
        placed=placed,
        calls=len(latencies),
        decide_s=total,
    )


def placement_bench(
    n_nodes: int, n_pods: int, profiles: Sequence[str], seed: int = 0
) -> dict[str, Any]:
    """``{"nodes", "pods", "results": {PROFILE: {"pods_per_s", "p99_decision_ms", "placed", ...}}}``."""
    from aesp.experiments.schedulers import make_scheduler

    table = synthetic_cluster(n_nodes, seed)
    pods = synthetic_pods(n_pods, table, seed)
    results = {}
    for name in profiles:
        profile = load_profile(name)
        batch = (
            int(profile.solver_args.get("max_batch", 256)) if profile.solver == "hungarian" else 1
        )
        results[name] = run_profile(table, pods, make_scheduler(name, seed), batch).to_json()
    return {"nodes": n_nodes, "pods": n_pods, "seed": seed, "results": results}
