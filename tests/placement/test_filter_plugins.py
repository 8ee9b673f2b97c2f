"""Table tests for the filter and prefilter plugins."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from aesp.core import Code, Link, Topology
from aesp.placement import CycleState
from aesp.placement.framework.registry import create
from aesp.placement.plugins.loadaware import over_threshold
from aesp.testing import cluster, make_node, make_site, make_task, snapshot

MakeState = Callable[..., CycleState]


def test_node_up(make_state: MakeState) -> None:
    table = cluster([make_node(f"n{i}") for i in range(3)])
    state = make_state(snapshot(table, up=[True, False, True]))
    got = create("NodeUp").filter(state, make_task().build())
    np.testing.assert_array_equal(got, [True, False, True])
    got[0] = False  # a copy, not the snapshot's read-only array
    assert state.snapshot.up[0]


@pytest.fixture
def fit_state(make_state: MakeState) -> CycleState:
    # node   capacity (cpu, mem, GPUs)   allocated        GPU free
    # small  2000, 4096                  0                -
    # busy   8000, 16384                 7000, 1024       -
    # gpu    8000, 16384, 2 x T4         1000, 1024, 750  [250, 1000]
    table = cluster([
        make_node("small").cpu(2000).mem(4096),
        make_node("busy").cpu(8000).mem(16384),
        make_node("gpu").cpu(8000).mem(16384).gpus(2, "T4"),
    ])
    snap = snapshot(
        table,
        allocated=[[0, 0, 0], [7000, 1024, 0], [1000, 1024, 750]],
        gpu_free=[[0, 0], [0, 0], [250, 1000]],
    )
    return make_state(snap)


@pytest.mark.parametrize(
    ("cpu", "mem", "gpus", "milli", "expected"),
    [
        (1000, 1024, 0, 0, [True, True, True]),  # busy has 8000 - 7000 = 1000 free: exactly fits
        (2000, 1024, 0, 0, [True, False, True]),  # busy: 1000 < 2000
        (1000, 8192, 0, 0, [False, True, True]),  # small: 4096 < 8192 MiB
        (1000, 1024, 1, 250, [False, False, True]),  # gpu: GPU 0 has 250 free
        (1000, 1024, 1, 500, [False, False, True]),  # gpu: GPU 1 has 1000 free
        (1000, 1024, 2, 1000, [False, False, False]),  # gpu: only one whole GPU free
        (8000, 1024, 0, 0, [False, False, False]),  # gpu: 8000 - 1000 = 7000 < 8000
    ],
)
def test_node_resources_fit_filter(
    fit_state: CycleState, cpu: float, mem: float, gpus: int, milli: int, expected: list[bool]
) -> None:
    task = make_task().cpu(cpu).mem(mem).gpu(gpus, milli).build()
    np.testing.assert_array_equal(create("NodeResourcesFit").filter(fit_state, task), expected)


@pytest.mark.parametrize(
    ("cpu", "mem", "gpus", "code"),
    [
        (8000, 16384, 2, Code.SUCCESS),  # fits the empty gpu node, though not now
        (8001, 1024, 0, Code.UNRESOLVABLE),  # more CPU than any node has
        (1000, 16385, 0, Code.UNRESOLVABLE),  # more memory than any node has
        (1000, 1024, 3, Code.UNRESOLVABLE),  # more GPUs than any node has
    ],
)
def test_node_resources_fit_prefilter(
    fit_state: CycleState, cpu: float, mem: float, gpus: int, code: Code
) -> None:
    task = make_task().cpu(cpu).mem(mem).gpu(gpus).build()
    status = create("NodeResourcesFit").prefilter(fit_state.snapshot, task)
    assert status.code == code
    if code == Code.UNRESOLVABLE:
        assert status.plugin == "NodeResourcesFit" and status.reasons == ("larger than any node",)


def test_prefilter_counts_down_nodes_as_possible(make_state: MakeState) -> None:
    # A node that is down now may come back: the task is not unresolvable.
    table = cluster([make_node("a").cpu(8000), make_node("b").cpu(1000)])
    snap = snapshot(table, up=[False, True])
    task = make_task().cpu(4000).build()
    assert create("NodeResourcesFit").prefilter(snap, task).ok


@pytest.mark.parametrize(
    ("models", "gpus", "expected"),
    [
        (("T4", "A10"), 1, [True, False, False, True]),
        (("V100",), 1, [False, True, False, False]),
        (("H100",), 1, [False, False, False, False]),  # a model no node has
        ((), 1, [True, True, True, True]),  # any model (GpuModel leaves fit to NodeResourcesFit)
        (("T4",), 0, [True, True, True, True]),  # a CPU task ignores its GPU models
    ],
)
def test_gpu_model(
    make_state: MakeState, models: tuple[str, ...], gpus: int, expected: list[bool]
) -> None:
    table = cluster([
        make_node("t4").gpus(1, "T4"),
        make_node("v100").gpus(1, "V100"),
        make_node("cpu"),
        make_node("a10").gpus(1, "A10"),
    ])
    task = make_task().gpu(gpus, 500 if gpus else 0).gpu_models(*models).build()
    np.testing.assert_array_equal(create("GpuModel").filter(make_state(snapshot(table)), task), expected)


@pytest.mark.parametrize(
    ("arches", "expected"),
    [
        (("arm64",), [False, True, True]),
        (("x86_64",), [True, False, False]),
        (("x86_64", "arm64"), [True, True, True]),
        ((), [True, True, True]),
    ],
)
def test_node_arch(make_state: MakeState, arches: tuple[str, ...], expected: list[bool]) -> None:
    table = cluster([make_node("x"), make_node("a1").arch("arm64"), make_node("a2").arch("arm64")])
    task = make_task().arches(*arches).build()
    np.testing.assert_array_equal(create("NodeArch").filter(make_state(snapshot(table)), task), expected)


@pytest.fixture
def residency_state(make_state: MakeState) -> CycleState:
    # sites: eu (EU), us (US), cn (CN, no nodes); nodes: eu-0, us-0, eu-1
    topo = Topology.build(
        [make_site("eu", "EU"), make_site("us", "US"), make_site("cn", "CN")],
        [Link("eu", "us", 75, 1000), Link("us", "cn", 200, 1000)],
    )
    table = cluster(
        [make_node("eu-0").site("eu"), make_node("us-0").site("us"), make_node("eu-1").site("eu")],
        topo,
    )
    return make_state(snapshot(table))


@pytest.mark.parametrize(
    ("allowed", "expected", "code"),
    [
        (("EU",), [True, False, True], Code.SUCCESS),
        (("US", "EU"), [True, True, True], Code.SUCCESS),
        ((), [True, True, True], Code.SUCCESS),
        (("CN",), [False, False, False], Code.UNRESOLVABLE),  # a site, but no node there
        (("JP",), [False, False, False], Code.UNRESOLVABLE),  # no such site at all
    ],
)
def test_jurisdiction(
    residency_state: CycleState, allowed: tuple[str, ...], expected: list[bool], code: Code
) -> None:
    plugin = create("Jurisdiction")
    task = make_task().jurisdictions(*allowed).build()
    np.testing.assert_array_equal(plugin.filter(residency_state, task), expected)
    status = plugin.prefilter(residency_state.snapshot, task)
    assert status.code == code
    if code == Code.UNRESOLVABLE:
        assert status.plugin == "Jurisdiction" and str(list(allowed)) in status.reasons[0]


@pytest.mark.parametrize(
    ("usage", "staleness_s", "kept"),
    [
        # thresholds: CPU 65 %, memory 95 %, metric expiration 180 s; capacity 4000m / 10000 MiB
        ((2600, 1000), 0, True),  # 2600/4000 = 65 %: not above the threshold
        ((2700, 1000), 0, False),  # 67.5 % > 65 %
        ((1000, 9500), 0, True),  # memory 95 %: not above
        ((1000, 9600), 0, False),  # memory 96 % > 95 %
        ((3600, 9900), 180, False),  # 180 s old is still fresh: filtered
        ((3600, 9900), 181, True),  # stale metrics: not filtered (Koordinator skips them)
        ((3600, 9900), 1e9, True),
    ],
)
def test_load_aware_filter(
    make_state: MakeState, usage: tuple[float, float], staleness_s: float, kept: bool
) -> None:
    table = cluster([make_node("a").cpu(4000).mem(10000)])
    snap = snapshot(table, usage=[[usage[0], usage[1], 0]], staleness_s=[staleness_s])
    got = create("LoadAwareFilter").filter(make_state(snap), make_task().build())
    assert got.tolist() == [kept]


def test_load_aware_filter_args(make_state: MakeState) -> None:
    # Only CPU checked at 50 %: 2100/4000 = 52.5 % is filtered, memory 99 % is not checked.
    table = cluster([make_node("a").cpu(4000).mem(10000), make_node("b").cpu(4000).mem(10000)])
    snap = snapshot(table, usage=[[2100, 0, 0], [1000, 9900, 0]])
    plugin = create("LoadAwareFilter", {"thresholds_pct": {"cpu_milli": 50}, "metric_expiration_s": 60})
    assert plugin.filter(make_state(snap), make_task().build()).tolist() == [False, True]


def test_over_threshold_pure() -> None:
    usage = np.array([[700.0, 10.0, 0.0], [100.0, 10.0, 900.0]])
    cap = np.array([[1000.0, 100.0, 0.0], [1000.0, 100.0, 1000.0]])
    # GPU threshold NaN: not checked; node 0 CPU 70 % > 65 %; node 1 CPU 10 %, mem 10 %.
    assert over_threshold(usage, cap, np.array([65.0, 95.0, np.nan])).tolist() == [True, False]
    # GPU at 80 %: node 1's 90 % GPU is over; node 0 has no GPU (0 %).
    assert over_threshold(usage, cap, np.array([np.nan, np.nan, 80.0])).tolist() == [False, True]
