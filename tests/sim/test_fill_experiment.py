"""The fill experiment: the stop rule, allocation by hand, determinism, and the real OpenB trace."""

from __future__ import annotations

import math
import time
from dataclasses import replace
from pathlib import Path

import pytest

from aesp.core import NodeTable, Topology
from aesp.placement import build_scheduler
from aesp.sim.fill import FillConfig, FillResult, fill
from aesp.testing import cluster, make_node, make_task


def one_node() -> NodeTable:
    return cluster([make_node("g").cpu(8000).mem(16384).gpus(2, "T4")])


def test_whole_gpus_fill_the_node_then_patience_stops() -> None:
    # 1-GPU pods on a 2-GPU node: 2 placed, then 3 consecutive failures end the fill.
    pods = [make_task(0).cpu(1000).mem(2048).gpu(1).build()]
    r = fill(one_node(), pods, build_scheduler("kube-default"), FillConfig(patience=3))
    assert (r.pods_submitted, r.pods_placed) == (2 + 3, 2)
    assert r.gpu_allocated_fraction == 1.0  # 2000 / 2000
    assert r.unallocated_gpu_fraction == 0.0
    assert r.cpu_allocated_fraction == 0.25  # 2 * 1000 / 8000
    assert r.mem_allocated_fraction == 0.25  # 2 * 2048 / 16384
    # GPU demand reaches 2000 at the 2nd pod, when 2000 is allocated.
    assert r.gpu_allocated_at_full_demand == 1.0


def test_fractional_pods_strand_the_rest() -> None:
    # 600m pods: one per GPU (400m left on each cannot hold another 600m).
    pods = [make_task(0).cpu(1000).mem(1024).gpu(1, 600).build()]
    r = fill(one_node(), pods, build_scheduler("best-fit"), FillConfig(patience=4))
    assert (r.pods_submitted, r.pods_placed) == (2 + 4, 2)
    assert r.gpu_allocated_fraction == pytest.approx(0.6)  # 1200 / 2000
    assert r.unallocated_gpu_fraction == pytest.approx(0.4)
    assert r.cpu_allocated_fraction == pytest.approx(0.25)  # 2000 / 8000
    assert r.mem_allocated_fraction == pytest.approx(0.125)  # 2048 / 16384
    # Demand 600, 1200, 1800, 2400 >= 2000 at the 4th pod; 1200 allocated then.
    assert r.gpu_allocated_at_full_demand == pytest.approx(0.6)


def test_patience_counts_consecutive_failures_only() -> None:
    # Pods of 1 GPU (cpu 1000) and CPU-only pods (cpu 3000) on a node of 2 GPUs, 8000m.
    # Whatever the draw order, a success resets the count: the fill ends only after
    # `patience` failures in a row, so the last `patience` submissions all failed.
    pods = [make_task(0).cpu(1000).gpu(1).build(), make_task(1).cpu(3000).build()]
    for patience in (1, 2, 5):
        r = fill(one_node(), pods, build_scheduler("kube-default"), FillConfig(seed=3, patience=patience))
        assert r.pods_submitted - r.pods_placed >= patience
        assert r.cpu_allocated_fraction <= 1.0 and r.gpu_allocated_fraction <= 1.0


def test_max_pods_ends_the_fill() -> None:
    pods = [make_task(0).cpu(10).mem(10).build()]
    r = fill(one_node(), pods, build_scheduler("kube-default"), FillConfig(max_pods=7))
    assert (r.pods_submitted, r.pods_placed) == (7, 7)
    # No GPU demand at all: the demand never reaches capacity.
    assert math.isnan(r.gpu_allocated_at_full_demand)
    assert r.gpu_allocated_fraction == 0.0 and r.unallocated_gpu_fraction == 1.0


def test_cluster_without_gpus() -> None:
    table = cluster([make_node("c").cpu(4000).mem(4096)])
    pods = [make_task(0).cpu(1000).mem(1024).build()]
    r = fill(table, pods, build_scheduler("kube-default"), FillConfig(patience=2))
    assert (r.pods_placed, r.cpu_allocated_fraction) == (4, 1.0)
    assert r.gpu_allocated_fraction == 0.0  # no GPU capacity: 0, not a division by zero


def without_wall(r: FillResult) -> FillResult:
    return replace(r, sim_wall_s=0.0)


def mixed_pods() -> list:  # type: ignore[type-arg]
    return [
        make_task(0).cpu(1000).mem(2048).gpu(1, 250).build(),
        make_task(1).cpu(2000).mem(4096).gpu(1, 500).build(),
        make_task(2).cpu(4000).mem(8192).gpu(2).build(),
        make_task(3).cpu(500).mem(512).build(),
    ]


def mixed_cluster() -> NodeTable:
    return cluster([make_node(f"n{i}").cpu(16000).mem(32768).gpus(1 + i % 4, "T4") for i in range(6)])


def test_same_seed_same_result() -> None:
    one = fill(mixed_cluster(), mixed_pods(), build_scheduler("random", seed=1), FillConfig(seed=5, patience=10))
    two = fill(mixed_cluster(), mixed_pods(), build_scheduler("random", seed=1), FillConfig(seed=5, patience=10))
    assert without_wall(one) == without_wall(two)
    other = fill(mixed_cluster(), mixed_pods(), build_scheduler("random", seed=1), FillConfig(seed=6, patience=10))
    assert without_wall(other) != without_wall(one)  # the draw does depend on the seed


def test_empty_pod_list() -> None:
    with pytest.raises(ValueError, match="non-empty pod list"):
        fill(one_node(), [], build_scheduler("kube-default"))


def test_to_json_has_every_field() -> None:
    r = fill(one_node(), [make_task(0).gpu(1).build()], build_scheduler("kube-default"), FillConfig(patience=1))
    doc = r.to_json()
    assert set(doc) == {
        "pods_submitted", "pods_placed", "gpu_allocated_fraction", "unallocated_gpu_fraction",
        "cpu_allocated_fraction", "mem_allocated_fraction", "gpu_allocated_at_full_demand",
        "sim_wall_s",
    }
    assert doc["gpu_allocated_fraction"] + doc["unallocated_gpu_fraction"] == 1.0


def test_fill_on_openb(openb_dir: Path) -> None:
    from aesp.sim.traces import read_openb_nodes, read_openb_pods

    nodes = read_openb_nodes(openb_dir / "openb_node_list_gpu_node.csv")
    pods = read_openb_pods(openb_dir / "openb_pod_list_default.csv")
    table = NodeTable.build(nodes, Topology.single_site("openb"))
    t0 = time.perf_counter()
    r = fill(table, pods, build_scheduler("kube-default"), FillConfig(patience=20))
    elapsed = time.perf_counter() - t0
    assert 0 < r.gpu_allocated_fraction <= 1
    assert r.gpu_allocated_fraction + r.unallocated_gpu_fraction == pytest.approx(1.0)
    # Conservation: every submitted pod was placed or failed, and the run ended on the stop
    # rule (the last 20 failed) well before max_pods.
    assert 0 < r.pods_placed <= r.pods_submitted - 20
    assert r.pods_submitted < FillConfig().max_pods
    assert 0 < r.cpu_allocated_fraction <= 1 and 0 < r.mem_allocated_fraction <= 1
    assert elapsed < 30, f"fill on OpenB took {elapsed:.1f} s (about 9 s measured)"
