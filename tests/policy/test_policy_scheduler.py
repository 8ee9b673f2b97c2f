"""The ``rl`` scheduler: policy decisions inside the framework, and the deterministic fallback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesp.core import Scheduler
from aesp.experiments.schedulers import make_scheduler
from aesp.placement import FrameworkScheduler, build_scheduler
from aesp.policy.checkpoint import PolicyCheckpoint, save_checkpoint
from aesp.policy.networks import NodeScorer
from aesp.policy.observation import CONTEXT_DIM, NODE_DIM
from aesp.policy.scheduler import RLScheduler, RLSettings
from aesp.sim.driver import Simulation
from aesp.sim.fleet import Fleet
from aesp.sim.scenario import materialise

from .conftest import small_scenario


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("policy") / "p.pt"
    save_checkpoint(PolicyCheckpoint(NodeScorer(NODE_DIM, CONTEXT_DIM, 16)), path)
    return path


@pytest.fixture(scope="module")
def cycle():  # type: ignore[no-untyped-def]
    """A cluster snapshot and the first 40 tasks of a small workload, all pending at once."""
    m = materialise(small_scenario(), 3)
    return Fleet(m.table).snapshot(0.0), list(m.tasks[:40])


def test_policy_decides_within_the_framework(policy_file: Path, cycle) -> None:  # type: ignore[no-untyped-def]
    snapshot, pending = cycle
    rl = RLScheduler(policy_file, seed=1)
    d = rl.decide(snapshot, pending)
    assert d.solver == "rl" and d.counters["fallbacks"] == 0
    fleet = Fleet(snapshot.table)
    by_id = {t.id: t for t in pending}
    for b in d.bindings:
        assert fleet.check(b, by_id[b.task_id]) == ""  # never over-commits, GPUs valid
        fleet.bind(b, by_id[b.task_id])
    assert len(d.bindings) + len(d.statuses) == len(pending)


def _assert_fell_back(d, snapshot, pending) -> None:  # type: ignore[no-untyped-def]
    ref = build_scheduler("aesp", seed=1).decide(snapshot, pending)
    assert d.counters["fallbacks"] == 1
    assert d.bindings == ref.bindings


def test_missing_policy_falls_back(tmp_path: Path, cycle) -> None:  # type: ignore[no-untyped-def]
    snapshot, pending = cycle
    rl = RLScheduler(tmp_path / "absent.pt", seed=1)
    assert "not found" in rl.load_error
    d = rl.decide(snapshot, pending)
    _assert_fell_back(d, snapshot, pending)
    assert d.counters["fallback_missing"] == 1 and rl.stats["fallbacks"] == 1


def test_corrupt_policy_falls_back(tmp_path: Path, cycle) -> None:  # type: ignore[no-untyped-def]
    snapshot, pending = cycle
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a torch file at all")
    rl = RLScheduler(bad, seed=1)
    assert rl.checkpoint is None and rl.load_error
    _assert_fell_back(rl.decide(snapshot, pending), snapshot, pending)


def test_budget_exceeded_falls_back_and_is_counted(policy_file: Path, cycle) -> None:  # type: ignore[no-untyped-def]
    snapshot, pending = cycle
    rl = RLScheduler(policy_file, seed=1, settings=RLSettings(budget_ms=0.0))
    ref = build_scheduler("aesp", seed=1)  # stateful tie-breaks: call it in step with rl
    for _ in range(3):
        d = rl.decide(snapshot, pending)
        assert d.bindings == ref.decide(snapshot, pending).bindings
        assert d.counters["fallbacks"] == 1 and d.counters["fallback_budget"] == 1
    assert rl.stats == {"cycles": 3, "fallbacks": 3, "fallback_budget": 3}


def test_make_scheduler_names() -> None:
    assert isinstance(make_scheduler("kube-default", 0), FrameworkScheduler)
    rl = make_scheduler("rl", 0)
    assert isinstance(rl, RLScheduler) and isinstance(rl, Scheduler) and rl.name == "rl"
    custom = make_scheduler("rl:/nonexistent/policy.pt", 0)
    assert isinstance(custom, RLScheduler) and custom.checkpoint is None


def test_shipped_policy_loads_and_runs_a_simulation() -> None:
    rl = make_scheduler("rl", 0)
    assert isinstance(rl, RLScheduler)
    assert rl.checkpoint is not None, rl.load_error
    assert rl.checkpoint.version and rl.checkpoint.curve
    m = materialise(small_scenario(80), 5)
    metrics = Simulation(m.table, m.tasks, rl).run()
    assert metrics.invalid_bindings == 0 and metrics.completed == 80
    assert rl.stats["fallbacks"] == 0
    assert np.isfinite(metrics.mean_wait_s)
