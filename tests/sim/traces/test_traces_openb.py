"""OpenB node and pod lists: worked examples and the real trace's published counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from aesp.core import Node
from aesp.sim.traces import load_trace, read_openb_nodes, read_openb_pods, sniff

WriteTrace = Callable[..., Path]
"""The ``write_trace`` fixture: ``write(name, *lines, gz=False) -> Path``."""

POD_HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
    "creation_time,deletion_time,scheduled_time"
)
NODE_HEADER = "sn,cpu_milli,memory_mib,gpu,model"


def openb(data_dir: Path, name: str) -> Path:
    return data_dir / "alibaba-gpu-2023" / name


def test_nodes_worked_example(write_trace: WriteTrace) -> None:
    path = write_trace("nodes.csv", NODE_HEADER, "n0,32000,262144,0,", "n1,96000,786432,8,V100M32")
    cpu_node, gpu_node = read_openb_nodes(path, site="hz")
    assert (cpu_node.gpu_count, cpu_node.gpu_model, cpu_node.accel_kind) == (0, "", "none")
    assert (gpu_node.gpu_count, gpu_node.gpu_model, gpu_node.accel_kind) == (8, "V100M32", "gpu")
    assert gpu_node.cpu_milli == 96000 and gpu_node.mem_mib == 786432
    assert {n.site for n in (cpu_node, gpu_node)} == {"hz"}
    assert {n.arch for n in (cpu_node, gpu_node)} == {"x86_64"}


def test_pods_worked_example(write_trace: WriteTrace) -> None:
    path = write_trace(
        "pods.csv",
        POD_HEADER,
        # scheduled at 110: work = 400 - 110 = 290; arrival = 100 - 50 = 50
        "p0,4000,8192,1,500,T4|P100,LS,Running,100,400,110",
        # never scheduled: work = 60 - 50 = 10; earliest creation, so arrival 0
        "p1,2000,1024,0,0,,BE,Pending,50,60,",
        # deleted as it was scheduled: work clamped to 1 s; arrival = 300 - 50 = 250
        "p2,8000,4096,2,1000,,Burstable,Failed,300,320,320",
    )
    p1, p0, p2 = read_openb_pods(path)
    assert [t.id for t in (p1, p0, p2)] == [0, 1, 2]
    assert [(t.arrival_s, t.work) for t in (p1, p0, p2)] == [(0, 10), (50, 290), (250, 1)]
    assert (p0.request.gpu_count, p0.request.gpu_milli, p0.gpu_models) == (1, 500, ("T4", "P100"))
    assert (p0.task_class, p1.task_class, p2.task_class) == ("training", "batch", "training")
    assert (p0.priority, p1.priority, p2.priority) == (1, 0, 0)
    assert p1.labels == (("qos", "BE"), ("pod_phase", "Pending"))
    assert p2.request.gpu_total_milli == 2000


def test_untimed_pods_use_default_work(write_trace: WriteTrace) -> None:
    path = write_trace("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p,1,1,1,250")
    (task,) = read_openb_pods(path, default_work_s=120.0)
    assert (task.arrival_s, task.work, task.priority, task.labels) == (0.0, 120.0, 0, ())


def test_default_work_must_be_positive(write_trace: WriteTrace) -> None:
    path = write_trace("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p,1,1,0,0")
    with pytest.raises(ValueError, match="default_work_s"):
        read_openb_pods(path, default_work_s=0)


def test_real_all_nodes(data_dir: Path) -> None:
    nodes = read_openb_nodes(openb(data_dir, "openb_node_list_all_node.csv"))
    gpu_nodes = [n for n in nodes if n.gpu_count]
    assert len(nodes) == 1523
    assert len(gpu_nodes) == 1213
    assert sum(n.gpu_count for n in nodes) == 6212
    assert len({n.gpu_model for n in gpu_nodes}) == 7
    assert Counter(n.gpu_model for n in gpu_nodes)["G2"] == 549
    assert all(n.accel_kind == "gpu" for n in gpu_nodes)


def test_real_gpu_nodes(data_dir: Path) -> None:
    nodes = read_openb_nodes(openb(data_dir, "openb_node_list_gpu_node.csv"))
    assert (len(nodes), sum(n.gpu_count for n in nodes)) == (1213, 6212)


def test_real_default_pods(data_dir: Path) -> None:
    tasks = read_openb_pods(openb(data_dir, "openb_pod_list_default.csv"))
    assert len(tasks) == 8152
    assert Counter(t.task_class for t in tasks) == {"training": 7064, "batch": 1088}
    assert sum(t.request.gpu_count for t in tasks) == 7433
    assert sum(t.request.gpu_total_milli for t in tasks) == 6_086_800
    # 4,647 LS + 7 Guaranteed pods
    assert sum(t.priority for t in tasks) == 4654
    assert [t.id for t in tasks] == list(range(8152))
    arrivals = [t.arrival_s for t in tasks]
    assert arrivals[0] == 0 and arrivals == sorted(arrivals)
    assert min(t.work for t in tasks) >= 1


@pytest.mark.parametrize(
    ("name", "count", "gpu_pods"),
    [("openb_pod_list_gpushare40.csv", 8152, 7064), ("openb_pod_list_multigpu50.csv", 9061, 7973)],
)
def test_real_pod_variants(data_dir: Path, name: str, count: int, gpu_pods: int) -> None:
    tasks = read_openb_pods(openb(data_dir, name))
    assert (len(tasks), sum(1 for t in tasks if t.request.gpu_count)) == (count, gpu_pods)


def test_sniff_and_load_real(data_dir: Path) -> None:
    nodes_path = openb(data_dir, "openb_node_list_gpu_node.csv")
    assert sniff(nodes_path) == "openb-nodes"
    assert sniff(openb(data_dir, "openb_pod_list_multigpu50.csv")) == "openb-pods"
    nodes = load_trace(nodes_path, site="edge-1")
    assert all(isinstance(n, Node) and n.site == "edge-1" for n in nodes)


def test_gzip_round_trip(data_dir: Path, tmp_path: Path) -> None:
    import gzip

    plain = openb(data_dir, "openb_pod_list_default.csv")
    packed = tmp_path / "pods.csv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    unnamed = tmp_path / "pods.csv"  # gzip is told by its bytes, not the name
    unnamed.write_bytes(packed.read_bytes())
    expected = read_openb_pods(plain)
    assert read_openb_pods(packed) == expected
    assert read_openb_pods(unnamed) == expected
