"""Edge network priority and cross-region cost: where a task's data is matters.

Both read the topology between the task's data origin and each node's site. A task without a
data origin is neutral (every node scores 100).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from aesp.core import ClusterSnapshot, Task
from aesp.core.resources import FloatArray, IntArray
from aesp.placement.framework.interfaces import MAX_NODE_SCORE, CycleState
from aesp.placement.framework.registry import register


def stream_mbps(task: Task) -> float:
    """Average rate at which the task pulls its data: ``data_size_gb * 8000 / work`` Mbps."""
    return task.data_size_gb * 8000.0 / max(task.work, 1.0)


def network_priority(
    latency_ms: FloatArray,
    bandwidth_cost_mbps: FloatArray,
    w_latency: float = 0.7,
    w_bandwidth: float = 0.3,
    ref_latency_ms: float = 100.0,
    ref_bandwidth_mbps: float = 10.0,
) -> FloatArray:
    """``0.7 * (1 - latency / 100 ms) + 0.3 * (1 - bandwidth_cost / 10 Mbps)``, clamped to [0, 1].

    Each term is clamped to [0, 1] before weighting; the result is scaled to [0, 100].

    Shapes: latency_ms, bandwidth_cost_mbps ``(K,)`` -> ``(K,)``.
    """
    lat = np.clip(1.0 - latency_ms / ref_latency_ms, 0.0, 1.0)
    bw = np.clip(1.0 - bandwidth_cost_mbps / ref_bandwidth_mbps, 0.0, 1.0)
    total = w_latency + w_bandwidth
    return np.clip((w_latency * lat + w_bandwidth * bw) / total, 0.0, 1.0) * MAX_NODE_SCORE  # type: ignore[no-any-return]


def origin_paths(
    snapshot: ClusterSnapshot, task: Task, candidates: IntArray
) -> tuple[int, IntArray]:
    """The origin's site index and the candidates' site indices."""
    topo = snapshot.topology
    return topo.index(task.data_origin), snapshot.table.site[candidates]


@register
class NetworkPriority:
    """Edge network priority: low RTT from the data origin and little data crossing the WAN.

    ``bandwidth_cost`` is the task's stream rate (Mbps) when its data must cross sites, 0 when
    the node sits where the data is.
    """

    NAME: ClassVar[str] = "NetworkPriority"

    def __init__(
        self,
        w_latency: float = 0.7,
        w_bandwidth: float = 0.3,
        ref_latency_ms: float = 100.0,
        ref_bandwidth_mbps: float = 10.0,
    ) -> None:
        if w_latency < 0 or w_bandwidth < 0 or w_latency + w_bandwidth <= 0:
            raise ValueError("weights must be non-negative and not both zero")
        if ref_latency_ms <= 0 or ref_bandwidth_mbps <= 0:
            raise ValueError("reference latency and bandwidth must be positive")
        self.args = (w_latency, w_bandwidth, ref_latency_ms, ref_bandwidth_mbps)

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        if not task.data_origin:
            return np.full(len(candidates), MAX_NODE_SCORE)
        origin, sites = origin_paths(state.snapshot, task, candidates)
        latency = state.snapshot.topology.rtt_ms[origin, sites]
        crossing = np.where(sites != origin, stream_mbps(task), 0.0)
        return network_priority(latency, crossing, *self.args)


def cross_region_cost(
    rtt_ms: FloatArray,
    transfer_usd: FloatArray,
    compliance_usd: FloatArray,
    alpha: float,
    lam_ms: FloatArray,
    beta: float,
    gamma: float,
) -> FloatArray:
    """``Cost = alpha * (RTT + lambda) + beta * (data_transfer_cost + gamma * compliance_cost)``.

    Units: rtt_ms and lam_ms milliseconds; transfer_usd and compliance_usd US dollars; alpha is
    cost per ms, beta cost per USD. Shapes: all ``(K,)`` -> ``(K,)``.
    """
    return alpha * (rtt_ms + lam_ms) + beta * (transfer_usd + gamma * compliance_usd)  # type: ignore[no-any-return]


def reverse_normalise(cost: FloatArray) -> FloatArray:
    """Cheapest candidate 100, dearest 0, linear between (all equal: 100)."""
    if cost.size == 0:
        return np.zeros(0)
    lo, hi = float(cost.min()), float(cost.max())
    if hi - lo <= 1e-12:
        return np.full(len(cost), MAX_NODE_SCORE)
    return (hi - cost) / (hi - lo) * MAX_NODE_SCORE  # type: ignore[no-any-return]


@register
class CrossRegionCost:
    """Cross-region cost, reverse-normalised over the candidates.

    ``lambda`` is a fixed latency penalty (ms) for leaving the origin's region; the compliance
    cost applies per GB when data leaves its origin's jurisdiction (tasks with hard residency
    rules are already filtered by ``Jurisdiction``).
    """

    NAME: ClassVar[str] = "CrossRegionCost"

    def __init__(
        self,
        alpha: float = 0.01,
        beta: float = 1.0,
        gamma: float = 1.0,
        lambda_ms: float = 50.0,
        compliance_usd_per_gb: float = 0.05,
    ) -> None:
        if min(alpha, beta, gamma, lambda_ms, compliance_usd_per_gb) < 0:
            raise ValueError("cross-region cost parameters must be non-negative")
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.lambda_ms, self.compliance_usd_per_gb = lambda_ms, compliance_usd_per_gb

    def costs(self, snapshot: ClusterSnapshot, task: Task, candidates: IntArray) -> FloatArray:
        """Raw costs for the candidates. Shapes: ``(K,)`` -> ``(K,)``."""
        origin, sites = origin_paths(snapshot, task, candidates)
        topo = snapshot.topology
        site_region = np.array([s.region for s in topo.sites])
        site_juris = np.array([s.jurisdiction for s in topo.sites])
        lam = np.where(site_region[sites] != site_region[origin], self.lambda_ms, 0.0)
        transfer = task.data_size_gb * topo.usd_per_gb[origin, sites]
        crossing = site_juris[sites] != site_juris[origin]
        compliance = np.where(crossing, task.data_size_gb * self.compliance_usd_per_gb, 0.0)
        return cross_region_cost(
            topo.rtt_ms[origin, sites], transfer, compliance, self.alpha, lam, self.beta, self.gamma
        )

    def score(self, state: CycleState, task: Task, candidates: IntArray) -> FloatArray:
        if not task.data_origin:
            return np.full(len(candidates), MAX_NODE_SCORE)
        return reverse_normalise(self.costs(state.snapshot, task, candidates))
