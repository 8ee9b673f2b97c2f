"""Request, Node, Task validation, NodeTable codes and ClusterSnapshot invariants."""

from __future__ import annotations

import numpy as np
import pytest

from aesp.core import ClusterSnapshot, Node, NodeTable, Request, Task, Topology
from aesp.testing import cluster, make_node, make_task, snapshot


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cpu_milli": -1, "mem_mib": 0}, "non-negative"),
        ({"cpu_milli": 0, "mem_mib": -5}, "non-negative"),
        ({"cpu_milli": 1, "mem_mib": 1, "gpu_count": -1}, "non-negative"),
        ({"cpu_milli": 1, "mem_mib": 1, "gpu_count": 1, "gpu_milli": 0}, "gpu_milli must be in"),
        ({"cpu_milli": 1, "mem_mib": 1, "gpu_count": 1, "gpu_milli": 1001}, "gpu_milli must be in"),
        ({"cpu_milli": 1, "mem_mib": 1, "gpu_count": 2, "gpu_milli": 500}, "whole GPUs"),
        ({"cpu_milli": 1, "mem_mib": 1, "gpu_count": 0, "gpu_milli": 500}, "without gpu_count"),
    ],
)
def test_request_rejects_invalid(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Request(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("request_", "vector", "total"),
    [
        (Request(500, 512), [500, 512, 0], 0),
        (Request(500, 512, 1, 250), [500, 512, 250], 250),  # 1 x 250
        (Request(8000, 32768, 4, 1000), [8000, 32768, 4000], 4000),  # 4 x 1000
    ],
)
def test_request_vector(request_: Request, vector: list[float], total: int) -> None:
    assert request_.gpu_total_milli == total
    np.testing.assert_array_equal(request_.vector(), vector)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cpu_milli": 0}, "must be positive"),
        ({"mem_mib": 0}, "must be positive"),
        ({"gpu_count": -1}, "non-negative"),
        ({"arch": "riscv"}, "unknown arch"),
        ({"accel_kind": "tpu"}, "unknown accelerator"),
        ({"gpu_count": 2}, "needs a gpu_model"),
    ],
)
def test_node_rejects_invalid(kwargs: dict[str, object], message: str) -> None:
    base: dict[str, object] = {"name": "n", "site": "s", "cpu_milli": 1000, "mem_mib": 1024}
    with pytest.raises(ValueError, match=message):
        Node(**{**base, **kwargs})  # type: ignore[arg-type]


def test_task_rejects_invalid() -> None:
    with pytest.raises(ValueError, match="unknown class"):
        make_task().kind("mining").build()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-negative"):
        make_task().arrival(-1).build()
    with pytest.raises(ValueError, match="usage ratios"):
        make_task().usage(5.0, 1.0).build()


def test_builders_make_what_they_say() -> None:
    node = make_node("n1").cpu(4000).mem(8192).gpus(2, "T4").site("s").build()
    assert (node.name, node.site, node.cpu_milli, node.mem_mib) == ("n1", "s", 4000, 8192)
    assert (node.gpu_count, node.gpu_model, node.accel_kind) == (2, "T4", "gpu")
    task = make_task(1).cpu(500).mem(512).gpu(1, 500).build()
    assert task.id == 1 and task.request == Request(500, 512, 1, 500)
    assert isinstance(task, Task)


def test_node_table_codes_and_gpu_present() -> None:
    table = cluster([
        make_node("a").gpus(2, "V100"),
        make_node("b").arch("arm64"),
        make_node("c").gpus(3, "A100").site("edge"),
        make_node("d").accel("npu", "Ascend310").site("edge"),
    ])
    # GPU models are sorted after the empty "no GPU" code: ("", "A100", "V100").
    assert table.gpu_models == ("", "A100", "V100")
    np.testing.assert_array_equal(table.gpu_model, [2, 0, 1, 0])
    assert table.gpu_model_code("A100") == 1 and table.gpu_model_code("H100") == -1
    np.testing.assert_array_equal(table.arch, [0, 1, 0, 0])  # ARCHES = (x86_64, arm64)
    np.testing.assert_array_equal(table.accel_kind, [1, 0, 1, 3])  # none, gpu, dpu, npu
    np.testing.assert_array_equal(table.site, [0, 0, 1, 1])
    # G = the largest GPU count (3); a node's first gpu_count columns are present.
    np.testing.assert_array_equal(
        table.gpu_present,
        [[True, True, False], [False, False, False], [True, True, True], [False, False, False]],
    )
    # capacity: cpu, mem, gpu_milli = 1000 per GPU
    np.testing.assert_array_equal(table.capacity[:, 2], [2000, 0, 3000, 0])
    assert table.names == ("a", "b", "c", "d") and len(table) == 4


def test_node_table_without_gpus_has_one_gpu_column() -> None:
    table = cluster([make_node("a"), make_node("b")])
    assert table.gpu_present.shape == (2, 1) and not table.gpu_present.any()


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        ([], "at least one node"),
        ([make_node("a"), make_node("a")], "duplicate node names"),
        ([make_node("a").site("elsewhere")], "missing from the topology"),
    ],
)
def test_node_table_rejects(nodes: list[object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        NodeTable.build([n.build() for n in nodes], Topology.single_site())  # type: ignore[attr-defined]


def test_snapshot_arrays_are_read_only() -> None:
    table = cluster([make_node("a").gpus(1), make_node("b")])
    snap = snapshot(table, allocated=[[1000, 1024, 0], [0, 0, 0]])
    for name in ("allocated", "usage", "gpu_free_milli", "up", "staleness_s", "temperature_c"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(snap, name)[0] = 1
    for array in (table.capacity, table.gpu_present, table.site, table.topology.rtt_ms):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0


def test_snapshot_is_a_frozen_dataclass() -> None:
    snap = ClusterSnapshot.empty(cluster([make_node("a")]))
    with pytest.raises(AttributeError):
        snap.time_s = 5.0  # type: ignore[misc]


def test_snapshot_free_and_empty() -> None:
    table = cluster([make_node("a").cpu(4000).mem(8192).gpus(2)])
    snap = ClusterSnapshot.empty(table, time_s=3.0)
    np.testing.assert_array_equal(snap.free, [[4000, 8192, 2000]])
    np.testing.assert_array_equal(snap.gpu_free_milli, [[1000, 1000]])
    assert snap.up.all() and snap.time_s == 3.0 and len(snap) == 1
    used = snapshot(table, allocated=[[1500, 1024, 500]], gpu_free=[[500, 1000]])
    np.testing.assert_array_equal(used.free, [[2500, 7168, 1500]])  # 4000-1500, 8192-1024, 2000-500


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("allocated", np.zeros((2, 2))),
        ("usage", np.zeros((3, 3))),
        ("gpu_free_milli", np.zeros((2, 5))),
        ("up", np.ones(3, np.bool_)),
        ("staleness_s", np.zeros((2, 1))),
        ("temperature_c", np.zeros(1)),
    ],
)
def test_snapshot_shape_checks(field: str, bad: np.ndarray) -> None:  # type: ignore[type-arg]
    table = cluster([make_node("a").gpus(2), make_node("b")])
    good = ClusterSnapshot.empty(table)
    arrays = {
        f: getattr(good, f).copy()
        for f in ("allocated", "usage", "gpu_free_milli", "up", "staleness_s", "temperature_c")
    }
    arrays[field] = bad
    with pytest.raises(ValueError, match=f"snapshot {field} has shape"):
        ClusterSnapshot(table=table, time_s=0.0, **arrays)
