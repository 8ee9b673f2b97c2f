"""The simulator's ground truth: what is allocated and used on each node."""

from __future__ import annotations

import numpy as np

from aesp.core import (
    MILLI_PER_GPU,
    Binding,
    ClusterSnapshot,
    NodeTable,
    Task,
    binding_fits,
)
from aesp.core.resources import FloatArray


def usage_vector(task: Task) -> FloatArray:
    """What a running task really uses: its request scaled by its usage ratios (GPU in full)."""
    r = task.request
    return np.array(
        [r.cpu_milli * task.cpu_usage_ratio, r.mem_mib * task.mem_usage_ratio, r.gpu_total_milli],
        np.float64,
    )


class Fleet:
    """Mutable per-node state of a simulated cluster.

    Shapes: allocated, usage ``(N, R)``; gpu_free_milli ``(N, G)``; up ``(N,)``.
    """

    def __init__(self, table: NodeTable) -> None:
        self.table = table
        n = len(table)
        self.allocated = np.zeros((n, 3))
        self.usage = np.zeros((n, 3))
        self.gpu_free_milli = np.where(table.gpu_present, float(MILLI_PER_GPU), 0.0)
        self.up = np.ones(n, np.bool_)
        self.temperature_c = np.full(n, np.nan)
        self.allocated_total = np.zeros(3)

    def check(self, binding: Binding, task: Task) -> str:
        """Why the binding is invalid (node down or over-committed); empty when valid."""
        if not 0 <= binding.node < len(self.table):
            return f"node index {binding.node} out of range"
        if not self.up[binding.node]:
            return "node is down"
        free = self.table.capacity[binding.node] - self.allocated[binding.node]
        return binding_fits(free, self.gpu_free_milli[binding.node], task.request, binding.gpus)

    def bind(self, binding: Binding, task: Task) -> None:
        vec = task.request.vector()
        self.allocated[binding.node] += vec
        self.allocated_total += vec
        self.usage[binding.node] += usage_vector(task)
        for g in binding.gpus:
            self.gpu_free_milli[binding.node, g] -= task.request.gpu_milli

    def release(self, binding: Binding, task: Task) -> None:
        vec = task.request.vector()
        self.allocated[binding.node] -= vec
        self.allocated_total -= vec
        self.usage[binding.node] -= usage_vector(task)
        for g in binding.gpus:
            self.gpu_free_milli[binding.node, g] += task.request.gpu_milli
        # Repeated float adds and subtracts drift; an empty node is exactly empty.
        np.clip(self.allocated[binding.node], 0.0, None, out=self.allocated[binding.node])
        np.clip(self.usage[binding.node], 0.0, None, out=self.usage[binding.node])

    def snapshot(self, time_s: float) -> ClusterSnapshot:
        """The exact current state (an oracle view)."""
        return ClusterSnapshot(
            table=self.table,
            time_s=time_s,
            allocated=self.allocated.copy(),
            usage=self.usage.copy(),
            gpu_free_milli=self.gpu_free_milli.copy(),
            up=self.up.copy(),
            staleness_s=np.zeros(len(self.table)),
            temperature_c=self.temperature_c.copy(),
        )
