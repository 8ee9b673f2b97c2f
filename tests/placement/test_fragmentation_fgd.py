"""FGD: fragmentation by hand, GPU placement after a task, and the plugin's preference."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aesp.core import Request, pick_gpus
from aesp.placement import CycleState
from aesp.placement.plugins.fragmentation import GpuFragmentation, fragmentation, gpu_free_after
from aesp.testing import cluster, make_node, make_task, snapshot

MakeState = Callable[..., CycleState]

ONE_HALF = Request(0, 0, 1, 500)  # 1 GPU x 500m
TWO_WHOLE = Request(0, 0, 2, 1000)  # 2 GPUs x 1000m
SHAPES = [ONE_HALF, TWO_WHOLE]
P = np.array([0.5, 0.5])

# (GPU free shares of one node, expected fragmentation for {1x500: 0.5, 2x1000: 0.5})
FRAG = [
    # total 1300. 1x500 fits on GPU 0 (1000 >= 500): stranded 1300 - 1000 = 300.
    # 2x1000 needs two GPUs with 1000 free, only GPU 0 has: stranded all 1300.
    # F = 0.5 * 300 + 0.5 * 1300 = 800
    ([1000, 300, 0, 0], 800.0),
    # total 2000, both shapes fit using both GPUs: F = 0
    ([1000, 1000, 0, 0], 0.0),
    # total 900 on 3 GPUs, each < 500 except GPU 2 (500): 1x500 strands 900 - 500 = 400;
    # 2x1000 does not fit: 900. F = 0.5 * 400 + 0.5 * 900 = 650
    ([200, 200, 500, 0], 650.0),
    # Nothing free: F = 0
    ([0, 0, 0, 0], 0.0),
    # total 3000: 1x500 uses all 3 GPUs, 2x1000 uses all 3 GPUs (>= 2 usable): F = 0
    ([1000, 1000, 1000, 0], 0.0),
    # total 400: neither shape fits: F = 400
    ([400, 0, 0, 0], 400.0),
]


def test_fragmentation_table() -> None:
    gpu = np.array([row for row, _ in FRAG], np.float64)
    k = len(FRAG)
    got = fragmentation(np.full(k, 1e6), np.full(k, 1e6), gpu, SHAPES, P)
    np.testing.assert_allclose(got, [f for _, f in FRAG])


def test_fragmentation_counts_all_gpus_stranded_when_cpu_is_short() -> None:
    # The 1x500 shape asks for 4000m; the node has 2000m free: every GPU share is stranded
    # for it. F = 0.5 * 1300 (1x500: CPU short) + 0.5 * 1300 (2x1000: GPUs short) = 1300
    shapes = [Request(4000, 0, 1, 500), TWO_WHOLE]
    got = fragmentation(
        np.array([2000.0]), np.array([1e6]), np.array([[1000.0, 300, 0, 0]]), shapes, P
    )
    assert got[0] == pytest.approx(1300.0)


# (GPU free row, request, row after) with pick_gpus' rules.
AFTER = [
    # Fractional: best fit, the GPU with the least free share that still fits.
    ([1000, 300, 600, 0], Request(0, 0, 1, 250), [1000, 50, 600, 0]),  # 300 is the tightest
    ([1000, 300, 600, 0], Request(0, 0, 1, 500), [1000, 300, 100, 0]),  # 600 (300 too small)
    ([1000, 300, 600, 0], Request(0, 0, 1, 1000), [0, 300, 600, 0]),
    # Multi-GPU: the first fully free GPUs.
    ([0, 1000, 500, 1000, 1000], Request(0, 0, 2, 1000), [0, 0, 500, 0, 1000]),
    ([1000, 1000, 1000, 1000, 0], Request(0, 0, 4, 1000), [0, 0, 0, 0, 0]),
    # Does not fit: unchanged.
    ([0, 1000, 500, 0, 0], Request(0, 0, 2, 1000), [0, 1000, 500, 0, 0]),
    ([200, 100, 0, 0, 0], Request(0, 0, 1, 300), [200, 100, 0, 0, 0]),
    # No GPUs requested: unchanged.
    ([1000, 300, 0, 0, 0], Request(100, 100), [1000, 300, 0, 0, 0]),
]


@pytest.mark.parametrize(("row", "req", "want"), AFTER)
def test_gpu_free_after(row: list[float], req: Request, want: list[float]) -> None:
    gpu = np.array([row], np.float64)
    np.testing.assert_allclose(gpu_free_after(gpu, req), [want])
    assert gpu.tolist() == [row]  # input not mutated


def test_gpu_free_after_per_row() -> None:
    gpu = np.array([[1000, 300, 0], [0, 0, 0], [250, 250, 900]], np.float64)
    got = gpu_free_after(gpu, Request(0, 0, 1, 250))
    np.testing.assert_allclose(got, [[1000, 50, 0], [0, 0, 0], [0, 250, 900]])


@settings(max_examples=100, deadline=None)
@given(
    row=st.lists(st.sampled_from([0, 100, 250, 500, 700, 1000]), min_size=1, max_size=6),
    req=st.sampled_from([(1, 100), (1, 250), (1, 500), (1, 1000), (2, 1000), (3, 1000)]),
)
def test_gpu_free_after_agrees_with_pick_gpus(row: list[int], req: tuple[int, int]) -> None:
    request = Request(0, 0, *req)
    gpu = np.array(row, np.float64)
    after = gpu_free_after(gpu[None, :], request)[0]
    try:
        picked = pick_gpus(gpu, request)
    except ValueError:
        np.testing.assert_array_equal(after, gpu)
        return
    want = gpu.copy()
    want[list(picked)] -= request.gpu_milli
    np.testing.assert_allclose(after, want)


def test_plugin_prefers_the_node_where_fragmentation_grows_least(make_state: MakeState) -> None:
    # Two 2-GPU nodes: A has both GPUs whole, B has [1000, 400] free (600m taken).
    # Learnt shapes: {1x400: 0.5, 2x1000: 0.5}. The task is 1x400.
    #   A before: both fit, F = 0.   after (400 on GPU 0 -> [600, 1000]): 1x400 fits (strand 0),
    #     2x1000 does not (strand 1600): F = 800.                         delta = +800
    #   B before: 1x400 fits (0), 2x1000 not (1400): F = 700.
    #     after (best fit: 400 on GPU 1 -> [1000, 0]): 0 and 1000: F = 500. delta = -200
    # reverse_normalise([800, -200]) = [0, 100].
    table = cluster([
        make_node("A").cpu(32000).mem(65536).gpus(2, "T4"),
        make_node("B").cpu(32000).mem(65536).gpus(2, "T4"),
    ])
    snap = snapshot(table, allocated=[[0, 0, 0], [0, 0, 600]], gpu_free=[[1000, 1000], [1000, 400]])
    plugin = GpuFragmentation()
    plugin.observe(make_task(99).cpu(0).mem(0).gpu(2, 1000).build())
    task = make_task(1).cpu(0).mem(0).gpu(1, 400).build()
    got = plugin.score(make_state(snap), task, np.array([0, 1]))
    np.testing.assert_allclose(got, [0.0, 100.0])
    assert plugin.shapes[task.request] == 1  # learnt once
    plugin.score(make_state(snap), task, np.array([0, 1]))
    assert plugin.shapes[task.request] == 1  # the same task is not counted twice


def test_plugin_without_gpu_shapes_is_neutral(make_state: MakeState) -> None:
    table = cluster([make_node("a"), make_node("b")])
    got = GpuFragmentation().score(make_state(snapshot(table)), make_task(0).build(), np.array([0, 1]))
    np.testing.assert_array_equal(got, [100.0, 100.0])


def test_fgd_profile_packs_fractional_tasks() -> None:
    # With a 2x1000 shape learnt, FGD keeps a whole GPU pair intact: the 1x400 task goes to B.
    from aesp.placement.framework.profile import Profile
    from aesp.placement.scheduler import FrameworkScheduler

    profile = Profile(
        name="fgd",
        filters=({"name": "NodeUp"}, {"name": "NodeResourcesFit"}),  # type: ignore[arg-type]
        scores=({"name": "GpuFragmentation"},),  # type: ignore[arg-type]
    )
    table = cluster([make_node(n).cpu(32000).mem(65536).gpus(2, "T4") for n in "AB"])
    snap = snapshot(table, allocated=[[0, 0, 0], [0, 0, 600]], gpu_free=[[1000, 1000], [1000, 400]])
    scheduler = FrameworkScheduler(profile)
    # Cycle 1, on an empty cluster: a 2x1000 task is scored (and so learnt) and placed.
    first = scheduler.decide(snapshot(table), [make_task(0).cpu(0).mem(0).gpu(2, 1000).build()])
    assert len(first.bindings) == 1
    # Cycle 2: the 1x400 task goes to B's 400m GPU, keeping A's pair whole.
    small = make_task(1).cpu(0).mem(0).gpu(1, 400).arrival(1).build()
    for seed in range(4):  # not a lucky tie-break
        scheduler.rng = np.random.default_rng(seed)
        d = scheduler.decide(snap, [small])
        assert [(b.task_id, b.node, b.gpus) for b in d.bindings] == [(1, 1, (1,))]
