"""The contract every registered filter and score plugin passes.

Parametrised over :func:`aesp.placement.registered`, so a plugin registered later is covered
without touching this file. Each plugin is built with no arguments through the registry; a
plugin that cannot be is skipped with the reason.

Contract: a filter returns a ``(N,)`` bool mask; a score returns ``(K,)`` finite values in
``[0, 100]`` for any candidate subset (including none); the same inputs (and, for random
plugins, the same seed) give the same output; neither the snapshot's arrays nor the cycle
state's arrays are changed; a prefilter returns a Status.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from aesp.core import ClusterSnapshot, Link, Status, Task, Topology
from aesp.placement import MAX_NODE_SCORE, CycleState, registered
from aesp.placement.framework.interfaces import FilterPlugin, PreFilterPlugin, ScorePlugin
from aesp.placement.framework.registry import create
from aesp.testing import cluster, make_node, make_site, make_task, snapshot

SNAPSHOT_FIELDS = ("allocated", "usage", "gpu_free_milli", "up", "staleness_s", "temperature_c")
STATE_FIELDS = ("allocated", "gpu_free_milli", "assumed")


def plugin_or_skip(name: str) -> Any:
    try:
        return create(name)
    except ValueError as exc:
        pytest.skip(f"{name} cannot be built without arguments ({exc}); give it a contract case")


def varied_snapshot() -> ClusterSnapshot:
    """Cloud and edge sites in two jurisdictions; CPU, GPU, ARM and NPU nodes; mixed state."""
    topo = Topology.build(
        [
            make_site("cloud", "US", "cloud"),
            make_site("edge", "US", "edge"),
            make_site("eu", "EU", "cloud"),
        ],
        [Link("cloud", "edge", 8, 1000, 0.01), Link("cloud", "eu", 75, 10000, 0.02)],
    )
    table = cluster(
        [
            make_node("c0").cpu(32000).mem(131072).site("cloud").price(1.5),
            make_node("g0").cpu(48000).mem(196608).gpus(4, "T4").site("cloud").price(3.9),
            make_node("g1").cpu(96000).mem(1048576).gpus(8, "A100").site("eu").price(32.8),
            make_node("e0").cpu(8000).mem(16384).arch("arm64").site("edge").price(0.3),
            make_node("e1").cpu(8000).mem(32768).arch("arm64").accel("npu", "Ascend310").site("edge"),
            make_node("e2").cpu(16000).mem(65536).gpus(1, "T4").site("edge").price(1.2),
        ],
        topo,
    )
    gpu_free = np.where(table.gpu_present, 1000.0, 0.0)
    gpu_free[1, :2] = (250.0, 0.0)
    gpu_free[2, :3] = 0.0
    return snapshot(
        table,
        allocated=[
            [4000, 8192, 0], [20000, 65536, 1750], [60000, 524288, 3000],
            [7000, 8192, 0], [0, 0, 0], [16000, 1024, 0],
        ],
        usage=[
            [3000, 6000, 0], [30000, 60000, 1750], [20000, 300000, 3000],
            [7900, 16000, 0], [0, 0, 0], [15000, 1000, 0],
        ],
        gpu_free=gpu_free,
        up=[True, True, True, True, False, True],
        staleness_s=[0, 10, 500, 0, 0, 60],
        time_s=3600.0,
    )


def tasks() -> list[Task]:
    return [
        make_task(0).cpu(2000).mem(4096).build(),
        make_task(1).cpu(4000).mem(8192).gpu(1, 250).gpu_models("T4", "A10").kind("transcode")
        .origin("edge", 2.0).slo(50).build(),
        make_task(2).cpu(16000).mem(65536).gpu(4, 1000).kind("training").arches("x86_64")
        .origin("cloud", 100.0).build(),
        make_task(3).cpu(1000).mem(1024).arches("arm64").jurisdictions("US").kind("analytics")
        .origin("edge", 1.0).slo(20).build(),
        make_task(4).cpu(0).mem(0).build(),
    ]


def fresh_state(seed: int = 0) -> CycleState:
    state = CycleState(varied_snapshot(), np.random.default_rng(seed))
    state.assume(make_task(99).cpu(1000).mem(1000).build(), 0)  # something assumed this cycle
    return state


def frozen_copies(state: CycleState) -> dict[str, np.ndarray]:  # type: ignore[type-arg]
    out = {f"snapshot.{f}": getattr(state.snapshot, f).copy() for f in SNAPSHOT_FIELDS}
    out |= {f"state.{f}": getattr(state, f).copy() for f in STATE_FIELDS}
    return out


def assert_unchanged(state: CycleState, before: dict[str, np.ndarray]) -> None:  # type: ignore[type-arg]
    after = frozen_copies(state)
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value, err_msg=f"{key} was mutated")


def candidate_sets(n: int) -> list[np.ndarray]:  # type: ignore[type-arg]
    return [np.arange(n), np.array([5, 1, 3]), np.array([2]), np.zeros(0, np.int64)]


PLUGINS = registered()


@pytest.mark.parametrize("name", PLUGINS)
def test_plugin_implements_an_extension_point(name: str) -> None:
    plugin = plugin_or_skip(name)
    assert name == plugin.NAME
    assert isinstance(plugin, FilterPlugin | ScorePlugin | PreFilterPlugin)


@pytest.mark.parametrize("name", PLUGINS)
def test_filter_contract(name: str) -> None:
    plugin = plugin_or_skip(name)
    if not isinstance(plugin, FilterPlugin):
        pytest.skip(f"{name} is not a filter")
    for task in tasks():
        state = fresh_state()
        before = frozen_copies(state)
        mask = plugin.filter(state, task)
        assert mask.shape == (len(state),) and mask.dtype == np.bool_
        assert_unchanged(state, before)
        again = plugin_or_skip(name).filter(fresh_state(), task)
        np.testing.assert_array_equal(mask, again, err_msg="not deterministic")


@pytest.mark.parametrize("name", PLUGINS)
def test_prefilter_contract(name: str) -> None:
    plugin = plugin_or_skip(name)
    if not isinstance(plugin, PreFilterPlugin):
        pytest.skip(f"{name} is not a prefilter")
    for task in tasks():
        state = fresh_state()
        before = frozen_copies(state)
        status = plugin.prefilter(state.snapshot, task)
        assert isinstance(status, Status)
        assert status.ok or status.plugin == name
        assert_unchanged(state, before)


@pytest.mark.parametrize("name", PLUGINS)
def test_score_contract(name: str) -> None:
    plugin = plugin_or_skip(name)
    if not isinstance(plugin, ScorePlugin):
        pytest.skip(f"{name} is not a score")
    for task in tasks():
        for cand in candidate_sets(len(varied_snapshot())):
            state = fresh_state(seed=5)
            before = frozen_copies(state)
            cand_before = cand.copy()
            scores = np.asarray(plugin.score(state, task, cand))
            assert scores.shape == (len(cand),), f"{name}: shape {scores.shape} for {len(cand)}"
            assert np.isfinite(scores).all(), f"{name}: non-finite scores {scores}"
            assert ((scores >= 0) & (scores <= MAX_NODE_SCORE)).all(), f"{name}: {scores}"
            assert_unchanged(state, before)
            np.testing.assert_array_equal(cand, cand_before, err_msg="candidates mutated")
            # Same inputs, same seed: same scores (a fresh plugin and a fresh state).
            again = plugin_or_skip(name).score(fresh_state(seed=5), task, cand)
            np.testing.assert_array_equal(scores, again, err_msg=f"{name} not deterministic")
