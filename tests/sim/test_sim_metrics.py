"""Metrics over the shipped scenario: conservation, determinism, fragmentation, trace replay."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from aesp.core import Request
from aesp.experiments import compare, load_trace_workload, scenario_workload
from aesp.placement import available_profiles
from aesp.sim.recorder import RunMetrics, gpu_fragmentation

WALL_CLOCK = frozenset({"sim_wall_s", "events_per_s", "mean_decision_ms"})


def comparable(m: RunMetrics) -> dict[str, Any]:
    """The metrics that depend only on the simulation, not on how fast it ran."""
    return {k: v for k, v in m.to_json().items() if k not in WALL_CLOCK}


@pytest.fixture(scope="module")
def seed_workload():  # type: ignore[no-untyped-def]
    return scenario_workload("seed-experiment")


@pytest.mark.parametrize("profile", available_profiles())
def test_every_task_is_accounted_for(profile: str, seed_workload) -> None:  # type: ignore[no-untyped-def]
    m = compare(seed_workload, [profile])[profile]
    assert m.tasks == 1100
    assert m.completed + m.failed + m.unscheduled == m.tasks
    assert m.invalid_bindings == 0
    for name, value in m.util.items():
        assert 0.0 <= value <= 1.0, (name, value)


def test_same_seed_same_metrics(seed_workload) -> None:  # type: ignore[no-untyped-def]
    one = compare(seed_workload, ["kube-default", "random"])
    two = compare(scenario_workload("seed-experiment"), ["kube-default", "random"])
    for name in one:
        assert comparable(one[name]) == comparable(two[name])


def test_different_seeds_differ(seed_workload) -> None:  # type: ignore[no-untyped-def]
    other = scenario_workload("seed-experiment", seed=8)
    assert [t.arrival_s for t in other.tasks] != [t.arrival_s for t in seed_workload.tasks]
    a = compare(seed_workload, ["kube-default"])["kube-default"]
    b = compare(other, ["kube-default"])["kube-default"]
    assert a.mean_jct_s != b.mean_jct_s and a.makespan_s != b.makespan_s


def test_gpu_fragmentation_worked_example() -> None:
    # node 0 up: free 4000m / 8192 MiB, GPUs free [1000, 300]
    # node 1 up: free 100m (too little CPU for any request), GPUs free [1000, 0]
    # node 2 down: GPUs free [1000, 1000] -> not counted at all
    # Free GPU on up nodes: 1000 + 300 + 1000 + 0 = 2300.
    free = np.array([[4000.0, 8192.0, 1300.0], [100.0, 8192.0, 1000.0], [4000.0, 8192.0, 2000.0]])
    gpu = np.array([[1000.0, 300.0], [1000.0, 0.0], [1000.0, 1000.0]])
    up = np.array([True, True, False])
    half = Request(1000, 1024, 1, 500)
    quarter = Request(500, 512, 1, 250)
    # Only 1 x 500 pending: node 0 GPU 0 usable; GPU 1 (300 < 500) and all of node 1 stranded:
    # (300 + 1000) / 2300
    assert gpu_fragmentation(free, gpu, up, [half]) == pytest.approx(1300 / 2300)
    # Also 1 x 250: node 0 GPU 1 (300 >= 250) becomes usable; node 1 still lacks CPU: 1000 / 2300
    assert gpu_fragmentation(free, gpu, up, [half, quarter, half]) == pytest.approx(1000 / 2300)
    # A whole-GPU pair needs two GPUs with 1000 free on one node: none on the up nodes -> all stranded
    assert gpu_fragmentation(free, gpu, up, [Request(1000, 1024, 2, 1000)]) == pytest.approx(1.0)
    assert math.isnan(gpu_fragmentation(free, gpu, up, []))
    assert math.isnan(gpu_fragmentation(free, np.zeros_like(gpu), up, [half]))


def test_openb_default_trace_replays_end_to_end(openb_dir: Path) -> None:
    workload = load_trace_workload(
        openb_dir / "openb_pod_list_default.csv", openb_dir / "openb_node_list_gpu_node.csv"
    )
    assert len(workload.tasks) == 8152
    m = compare(workload, ["kube-default"])["kube-default"]
    assert m.tasks == 8152
    assert m.completed + m.failed + m.unscheduled == 8152
    assert m.invalid_bindings == 0
