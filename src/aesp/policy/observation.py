"""What the policy sees: per-node features for one task, plus task, queue and topology context.

One :class:`FeatureBuilder` per cluster precomputes the static node attributes; ``observe`` then
builds, for the task at the head of the queue, a ``(N, NODE_DIM)`` node matrix and a
``(CONTEXT_DIM,)`` context vector from a :class:`~aesp.placement.CycleState` (the same working
state the framework's filters see, so the environment and :class:`RLScheduler` share one code
path). Every feature is scaled to roughly ``[-1, 1]`` and clipped to ``[-CLIP, CLIP]``.

The feature names, in order, are :data:`NODE_FEATURES`, :data:`TASK_FEATURES`,
:data:`QUEUE_FEATURES` and :data:`GLOBAL_FEATURES` (58 per decision; see ``docs/policy.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from aesp.config.capability import load_capability
from aesp.core import CPU, GPU, MEM, MILLI_PER_GPU, TASK_CLASSES, NodeTable, Task
from aesp.core.capability import CapabilityMatrix, SpeedTable
from aesp.core.resources import FloatArray
from aesp.placement import CycleState

CLIP = 10.0
"""Features are clipped to ``[-CLIP, CLIP]`` (the Gymnasium observation bounds)."""
REF_RTT_MS = 250.0
REF_WORK_S = 3600.0
REF_WAIT_S = 600.0
REF_SLO_MS = 200.0
REF_DATA_GB = 100.0

NODE_FEATURES: tuple[str, ...] = (
    "cap_cpu", "cap_mem", "cap_gpu",
    "alloc_cpu", "alloc_mem", "alloc_gpu",
    "slack_cpu", "slack_mem", "slack_gpu",
    "usage_cpu", "usage_mem", "staleness",
    "speed", "runtime", "tier_edge",
    "same_site", "same_region", "same_jurisdiction",
    "rtt", "transfer_usd", "price", "placement_usd",
    "temperature", "temperature_known", "whole_gpus_free", "gpu_partial_free",
    "arm64", "offload_accel",
)  # fmt: skip
TASK_FEATURES: tuple[str, ...] = (
    "req_cpu", "req_mem", "req_gpu_count", "req_gpu_share", "work",
    *(f"class_{c}" for c in TASK_CLASSES),
    "has_slo", "slo", "data_gb", "priority", "residency", "waited",
)  # fmt: skip
QUEUE_FEATURES: tuple[str, ...] = (
    "pending", "pending_cpu", "pending_gpu", "mean_wait", "max_wait", "feasible_share",
)  # fmt: skip
GLOBAL_FEATURES: tuple[str, ...] = (
    "cluster_alloc_cpu", "cluster_alloc_mem", "cluster_alloc_gpu",
    "sites", "edge_node_share", "nodes", "day_sin", "day_cos",
)  # fmt: skip
NODE_DIM = len(NODE_FEATURES)
CONTEXT_DIM = len(TASK_FEATURES) + len(QUEUE_FEATURES) + len(GLOBAL_FEATURES)


@dataclass(frozen=True)
class Observation:
    """One decision's inputs.

    Shapes: nodes ``(N, NODE_DIM)``; context ``(CONTEXT_DIM,)``; all float32.
    """

    nodes: np.ndarray  # type: ignore[type-arg]
    context: np.ndarray  # type: ignore[type-arg]


def _log_ratio(x: FloatArray | float, ref: float) -> FloatArray:
    """``log1p(x / ref)``: near-linear below ``ref``, compressed above."""
    return np.log1p(np.maximum(np.asarray(x, np.float64), 0.0) / ref)


class FeatureBuilder:
    """Feature extraction for one cluster (static parts computed once).

    Args:
        table: the cluster.
        matrix: capability matrix for task speeds; the shipped one when omitted.
        max_nodes: scale for the node-count feature (the environment's padding size).
    """

    def __init__(self, table: NodeTable, matrix: CapabilityMatrix | None = None,
                 max_nodes: int = 128) -> None:
        self.table = table
        self.speeds: SpeedTable = (matrix or load_capability()).speed_table(table)
        cap = table.capacity
        self.cap_scale = np.maximum(cap.max(axis=0), 1.0)
        self.safe_cap = np.maximum(cap, 1e-9)
        topo = table.topology
        self.site_region = np.array([s.region for s in topo.sites])
        self.site_juris = np.array([s.jurisdiction for s in topo.sites])
        price_max = max(float(table.usd_per_hour.max()), 1e-9)
        arm = np.array([n.arch == "arm64" for n in table.nodes], np.float64)
        offload = np.array([n.accel_kind in ("dpu", "npu") for n in table.nodes], np.float64)
        self.static = np.stack([
            cap[:, CPU] / self.cap_scale[CPU], cap[:, MEM] / self.cap_scale[MEM],
            cap[:, GPU] / self.cap_scale[GPU], table.tier.astype(np.float64),
            table.usd_per_hour / price_max, arm, offload,
        ], axis=1)  # fmt: skip
        self.globals = np.array([
            len(topo.sites) / 10.0, float(table.tier.mean()), len(table) / max_nodes,
        ])  # fmt: skip

    def speed(self, task: Task) -> FloatArray:
        """``(N,)`` speed of the task on every node (0 where a GPU task cannot run)."""
        return self.speeds.for_task(task)

    def placement_usd(self, task: Task) -> FloatArray:
        """``(N,)`` expected US dollars of running the task on each node.

        ``price * cpu_share * runtime_h + data_gb * usd_per_gb(origin, site)``, the simulator's
        compute and transfer charges with runtime ``work / speed``.
        """
        t = self.table
        runtime_h = task.work / np.maximum(self.speed(task), 1e-3) / 3600.0
        usd = t.usd_per_hour * (task.request.cpu_milli / self.safe_cap[:, CPU]) * runtime_h
        if task.data_origin and task.data_size_gb > 0:
            origin = t.topology.index(task.data_origin)
            usd = usd + task.data_size_gb * t.topology.usd_per_gb[origin, t.site]
        return usd  # type: ignore[no-any-return]

    def observe(self, state: CycleState, task: Task, pending: Sequence[Task],
                feasible_count: int) -> Observation:
        """Features of every node for ``task``, and the context vector."""
        nodes = self._node_features(state, task)
        context = np.concatenate([
            self._task_features(task, state.snapshot.time_s),
            self._queue_features(state, pending, feasible_count),
            self._global_features(state),
        ])  # fmt: skip
        return Observation(
            np.clip(nodes, -CLIP, CLIP).astype(np.float32),
            np.clip(context, -CLIP, CLIP).astype(np.float32),
        )

    def _node_features(self, state: CycleState, task: Task) -> FloatArray:
        t, snap, cap = self.table, state.snapshot, self.safe_cap
        has = t.capacity > 0
        alloc = np.where(has, state.allocated / cap, 0.0)
        slack = np.where(has, (state.free - task.request.vector()) / cap, 0.0)
        usage = (snap.usage + state.assumed) / cap
        speed = self.speed(task)
        runtime = _log_ratio(task.work / np.maximum(speed, 1e-3), REF_WORK_S)
        same_site = same_region = same_juris = np.zeros(len(t))
        rtt = transfer = np.zeros(len(t))
        if task.data_origin:
            topo = t.topology
            o = topo.index(task.data_origin)
            same_site = (t.site == o).astype(np.float64)
            same_region = (self.site_region[t.site] == self.site_region[o]).astype(np.float64)
            same_juris = (self.site_juris[t.site] == self.site_juris[o]).astype(np.float64)
            rtt = _log_ratio(topo.rtt_ms[o, t.site], REF_RTT_MS)
            transfer = task.data_size_gb * topo.usd_per_gb[o, t.site]
        usd = self.placement_usd(task)
        temp = snap.temperature_c
        known = ~np.isnan(temp)
        gfree = state.gpu_free_milli
        whole = (gfree >= MILLI_PER_GPU - 1e-9).sum(axis=1) / max(t.gpu_present.shape[1], 1)
        total_free = gfree.sum(axis=1)
        partial = np.where(gfree < MILLI_PER_GPU - 1e-9, gfree, 0.0).sum(axis=1)
        partial_share = np.divide(partial, total_free, out=np.zeros(len(t)), where=total_free > 0)
        s = self.static
        return np.stack([
            s[:, 0], s[:, 1], s[:, 2],
            alloc[:, CPU], alloc[:, MEM], alloc[:, GPU],
            slack[:, CPU], slack[:, MEM], slack[:, GPU],
            usage[:, CPU], usage[:, MEM], np.minimum(snap.staleness_s / 60.0, CLIP),
            speed / max(float(speed.max()), 1e-9), runtime, s[:, 3],
            same_site, same_region, same_juris,
            rtt, np.log1p(transfer), s[:, 4], usd / max(float(usd.max()), 1e-9),
            np.where(known, (np.nan_to_num(temp) - 40.0) / 40.0, 0.0), known.astype(np.float64),
            whole, partial_share, s[:, 5], s[:, 6],
        ], axis=1)  # fmt: skip

    @staticmethod
    def _task_features(task: Task, now_s: float) -> FloatArray:
        r = task.request
        onehot = np.array([task.task_class == c for c in TASK_CLASSES], np.float64)
        slo = task.latency_slo_ms
        return np.concatenate([
            [r.cpu_milli / 64000.0, r.mem_mib / 262144.0, r.gpu_count / 8.0,
             r.gpu_milli / MILLI_PER_GPU, float(_log_ratio(task.work, REF_WORK_S))],
            onehot,
            [float(slo is not None), (slo or 0.0) / REF_SLO_MS,
             float(_log_ratio(task.data_size_gb, REF_DATA_GB)), task.priority / 2.0,
             float(bool(task.allowed_jurisdictions)),
             float(_log_ratio(now_s - task.arrival_s, REF_WAIT_S))],
        ])  # fmt: skip

    def _queue_features(self, state: CycleState, pending: Sequence[Task],
                        feasible_count: int) -> FloatArray:
        now, total = state.snapshot.time_s, np.maximum(self.table.capacity.sum(axis=0), 1.0)
        waits = np.array([now - t.arrival_s for t in pending]) if pending else np.zeros(1)
        cpu = sum(t.request.cpu_milli for t in pending) / total[CPU]
        gpu = sum(t.request.gpu_total_milli for t in pending) / total[GPU]
        return np.array([
            math.log1p(len(pending)) / 5.0, cpu, gpu,
            float(_log_ratio(waits.mean(), REF_WAIT_S)), float(_log_ratio(waits.max(), REF_WAIT_S)),
            feasible_count / len(self.table),
        ])  # fmt: skip

    def _global_features(self, state: CycleState) -> FloatArray:
        total = np.maximum(self.table.capacity.sum(axis=0), 1.0)
        frac = state.allocated.sum(axis=0) / total
        day = 2 * math.pi * (state.snapshot.time_s % 86400.0) / 86400.0
        return np.concatenate([frac, self.globals, [math.sin(day), math.cos(day)]])
