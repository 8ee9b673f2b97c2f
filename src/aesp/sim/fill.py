"""The fill experiment (after the FGD paper's methodology): pack until the cluster is full.

Pods are drawn with replacement from a pod list (seeded) and submitted one at a time with no
departures; each is decided alone on the current state. **Stop rule:** the fill ends after
``patience`` consecutive pods could not be placed (by default 200), or after ``max_pods``
submissions. At that point the cluster is saturated for this workload: what GPU capacity is
still unallocated is capacity the scheduler stranded.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from aesp.core import CPU, GPU, MEM, NodeTable, Scheduler, Task
from aesp.sim.fleet import Fleet


@dataclass(frozen=True)
class FillConfig:
    """Fill settings."""

    seed: int = 0
    patience: int = 200
    """Consecutive placement failures that end the fill."""
    max_pods: int = 100_000


@dataclass(frozen=True)
class FillResult:
    """Allocation at saturation."""

    pods_submitted: int
    pods_placed: int
    gpu_allocated_fraction: float
    unallocated_gpu_fraction: float
    cpu_allocated_fraction: float
    mem_allocated_fraction: float
    gpu_allocated_at_full_demand: float
    """GPU allocation when the GPU demand submitted so far first reached the cluster's capacity."""
    sim_wall_s: float

    def to_json(self) -> dict[str, Any]:
        """Fields as a dict; NaN (e.g. demand never reached capacity) becomes None."""
        return {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in asdict(self).items()}


def fill(
    table: NodeTable, pods: Sequence[Task], scheduler: Scheduler, config: FillConfig = FillConfig()
) -> FillResult:
    """Submit pods until the cluster saturates (see module docstring)."""
    if not pods:
        raise ValueError("the fill experiment needs a non-empty pod list")
    wall0 = time.perf_counter()
    rng = np.random.default_rng(config.seed)
    fleet = Fleet(table)
    capacity = table.capacity.sum(axis=0)
    submitted = placed = failures = 0
    demand_gpu, at_full = 0.0, float("nan")
    while failures < config.patience and submitted < config.max_pods:
        task = replace(pods[int(rng.integers(len(pods)))], id=submitted, arrival_s=0.0)
        submitted += 1
        demand_gpu += task.request.gpu_total_milli
        decision = scheduler.decide(fleet.snapshot(0.0), [task])
        binding = decision.bindings[0] if decision.bindings else None
        if binding is not None and binding.task_id == task.id and not fleet.check(binding, task):
            fleet.bind(binding, task)
            placed, failures = placed + 1, 0
        else:
            failures += 1
        if np.isnan(at_full) and capacity[GPU] > 0 and demand_gpu >= capacity[GPU]:
            at_full = float(fleet.allocated_total[GPU] / capacity[GPU])
    frac = np.divide(fleet.allocated_total, capacity, out=np.zeros(3), where=capacity > 0)
    return FillResult(
        pods_submitted=submitted,
        pods_placed=placed,
        gpu_allocated_fraction=float(frac[GPU]),
        unallocated_gpu_fraction=float(1.0 - frac[GPU]),
        cpu_allocated_fraction=float(frac[CPU]),
        mem_allocated_fraction=float(frac[MEM]),
        gpu_allocated_at_full_demand=at_full,
        sim_wall_s=time.perf_counter() - wall0,
    )
