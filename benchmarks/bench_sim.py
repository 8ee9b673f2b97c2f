"""Simulator throughput on the OpenB default trace: kube-default against cheap baselines.

Run with ``.venv/bin/python -m pytest benchmarks/bench_sim.py -m benchmark -s``. Reports simulated
events per second and wall time for ``kube-default``, and the ratio to two baselines measured in
the same process: the ``first-fit`` profile (the cheapest framework scheduler) and the bare
event loop driving a trivial scheduler that binds to the first node that fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from aesp.core import Binding, ClusterSnapshot, Decision, Task, pick_gpus, resource_fit
from aesp.experiments import load_trace_workload
from aesp.placement import build_scheduler
from aesp.sim.driver import Simulation
from aesp.sim.recorder import RunMetrics


class TrivialFirstFit:
    """The least a scheduler can do: each task to the first node with room, no framework."""

    name = "trivial"

    def decide(self, snapshot: ClusterSnapshot, pending: Sequence[Task]) -> Decision:
        free = np.array(snapshot.free)
        gpu_free = np.array(snapshot.gpu_free_milli)
        up = snapshot.up
        bindings = []
        for task in sorted(pending, key=lambda t: (-t.priority, t.arrival_s, t.id)):
            fits = np.flatnonzero(resource_fit(free, gpu_free, task.request) & up)
            if fits.size == 0:
                continue
            node = int(fits[0])
            gpus = pick_gpus(gpu_free[node], task.request)
            free[node] -= task.request.vector()
            for g in gpus:
                gpu_free[node, g] -= task.request.gpu_milli
            bindings.append(Binding(task.id, node, gpus))
        return Decision(tuple(bindings), solver="trivial")


@pytest.mark.benchmark
def test_openb_replay_throughput(openb_dir: Path) -> None:
    workload = load_trace_workload(
        openb_dir / "openb_pod_list_default.csv", openb_dir / "openb_node_list_gpu_node.csv"
    )
    runs: dict[str, RunMetrics] = {}
    for name in ("trivial", "first-fit", "kube-default"):
        scheduler = TrivialFirstFit() if name == "trivial" else build_scheduler(name, workload.seed)
        runs[name] = Simulation(workload.table, workload.tasks, scheduler, workload.sim).run()
    base = runs["kube-default"]
    print(f"\nOpenB default trace: {len(workload.tasks):,} tasks on {len(workload.table):,} nodes")
    print(f"{'scheduler':<14}{'events':>9}{'wall s':>9}{'events/s':>11}{'ms/cycle':>10}{'wall/kube':>10}")
    for name, m in runs.items():
        ratio = m.sim_wall_s / base.sim_wall_s if base.sim_wall_s > 0 else float("nan")
        print(
            f"{name:<14}{m.events:>9,}{m.sim_wall_s:>9.2f}{m.events_per_s:>11,.0f}"
            f"{m.mean_decision_ms:>10.2f}{ratio:>10.2f}"
        )
    for name in ("trivial", "first-fit"):
        slowdown = runs[name].events_per_s / base.events_per_s
        print(f"kube-default is {slowdown:.2f}x slower than {name} (events/s ratio)")
    for m in runs.values():
        assert m.events_per_s > 0
        assert m.completed + m.failed + m.unscheduled == m.tasks == len(workload.tasks)
        assert m.invalid_bindings == 0
