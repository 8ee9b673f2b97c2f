"""The perception experiment: perceived state, reporting policies, the eval CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from aesp.cli.perception import app
from aesp.config import load_scenario
from aesp.experiments import Workload, scenario_workload
from aesp.experiments.perception import (
    POLICY_NAMES,
    PerceivedState,
    PerceptionConfig,
    PolicyResult,
    perception_compare,
    perception_document,
)
from aesp.perception import FixedInterval
from aesp.sim.faults import FaultConfig
from aesp.sim.fleet import Fleet
from aesp.testing import cluster, make_node

KEYS = {"misschedule_rate", "mean_staleness_s", "p95_staleness_s", "reports", "bytes",
        "mean_wait_s", "mean_jct_s"}


def small_scenario_file(tmp_path: Path) -> Path:
    """The shipped perception scenario cut to 150 tasks over 40 minutes."""
    config = load_scenario("perception-faults")
    workload = config.workload.model_copy(update={"tasks": 150, "horizon_s": 2400.0})
    doc = config.model_copy(update={"name": "perception-small", "workload": workload}).model_dump()
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workload, dict[str, PolicyResult]]:
    workload = scenario_workload(str(small_scenario_file(tmp_path_factory.mktemp("perc"))))
    return workload, perception_compare(workload)


def test_every_task_is_accounted_for(small: tuple[Workload, dict[str, PolicyResult]]) -> None:
    _, results = small
    assert list(results) == list(POLICY_NAMES)
    for r in results.values():
        m = r.metrics
        assert m.completed + m.failed + m.unscheduled == m.tasks == 150
        assert m.killed <= m.failed


def test_oracle_has_no_staleness_no_reports_and_no_misschedules(
    small: tuple[Workload, dict[str, PolicyResult]],
) -> None:
    oracle = small[1]["oracle"].to_json()
    assert (oracle["mean_staleness_s"], oracle["p95_staleness_s"]) == (0.0, 0.0)
    assert (oracle["reports"], oracle["bytes"], oracle["misschedule_rate"]) == (0, 0, 0.0)


def test_slower_reporting_is_staler_and_adaptive_reports_less(
    small: tuple[Workload, dict[str, PolicyResult]],
) -> None:
    d = {k: r.to_json() for k, r in small[1].items()}
    assert d["fixed-30s"]["mean_staleness_s"] > d["fixed-5s"]["mean_staleness_s"] > 0
    assert 0 < d["adaptive"]["reports"] < d["fixed-5s"]["reports"]
    assert d["fixed-30s"]["reports"] < d["fixed-5s"]["reports"]
    assert all(d[p]["bytes"] > d[p]["reports"] for p in ("fixed-30s", "fixed-5s", "adaptive"))


def test_json_document_schema(small: tuple[Workload, dict[str, PolicyResult]]) -> None:
    workload, results = small
    doc = json.loads(json.dumps(perception_document(workload, "load-aware", PerceptionConfig(), results)))
    assert set(doc["policies"]) == set(POLICY_NAMES)
    for entry in doc["policies"].values():
        assert set(entry) >= KEYS
        assert 0.0 <= entry["misschedule_rate"] <= 1.0
        assert isinstance(entry["reports"], int) and isinstance(entry["bytes"], int)
    assert doc["scheduler"] == "load-aware" and doc["seed"] == workload.seed


def test_a_failed_node_is_never_seen_up_once_its_reports_time_out() -> None:
    # Reports every 5 s; the view calls a node down 20 s after its last report. Node 0 dies at
    # 100 s (last report at 100): it may look up until 120 s, never after, until it reports again.
    table = cluster([make_node("a").cpu(4000), make_node("b").cpu(4000)])
    state = PerceivedState(table, lambda: FixedInterval(5.0), stale_after_s=20.0)
    fleet = Fleet(table)
    for k in range(61):
        now = 5.0 * k
        fleet.up[0] = not 100.0 < now <= 250.0
        state.tick(fleet, now)
        up = state.observe(fleet, now + 2.5).up
        assert up[1]
        if 120.0 < now + 2.5 <= 250.0:
            assert not up[0], now
    assert state.observe(fleet, 300.0).up[0]  # it reported again after recovering


def test_heartbeats_detect_a_dead_node_long_before_its_reports_time_out() -> None:
    # Full reports every 30 s (liveness from reports alone: 95 s), beats every 5 s: down after
    # 3 * 5 + 5 = 20 s without a beat. Node 0 dies at 100 s (last beat at 100): seen down from
    # 120 s on, 75 s before the report timeout would tell; beats also cost bytes.
    table = cluster([make_node("a").cpu(4000), make_node("b").cpu(4000)])
    state = PerceivedState(table, lambda: FixedInterval(30.0), stale_after_s=95.0, heartbeat_s=5.0)
    fleet = Fleet(table)
    for k in range(61):
        now = 5.0 * k
        fleet.up[0] = now <= 100.0
        state.tick(fleet, now)
        up = state.observe(fleet, now + 2.5).up
        assert up[1]
        assert up[0] == (now + 2.5 <= 120.0), now
    assert state.bytes > 0


def test_disconnected_agents_buffer_and_deliver_on_reconnect() -> None:
    table = cluster([make_node("a").cpu(4000)])
    state = PerceivedState(table, lambda: FixedInterval(5.0), stale_after_s=20.0)
    fleet = Fleet(table)
    state._disconnected = np.array([True])
    state.plan = None
    for k in range(4):
        state._now_s = 5.0 * k
        state.agents[0].tick(5.0 * k)
    assert state.reports == 0 and state.agents[0].buffered == 4
    state._disconnected = np.array([False])
    state.tick(fleet, 20.0)
    assert state.reports == 5 and state.agents[0].buffered == 0
    assert state.observe(fleet, 20.0).staleness_s[0] == 0.0


def test_cli_eval_writes_json(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path)
    out = tmp_path / "perc.json"
    result = CliRunner().invoke(app, ["eval", "--scenario", str(scenario), "--policy",
                                      "fixed-30s,oracle", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "fixed-30s" in result.output
    assert set(json.loads(out.read_text())["policies"]) == {"fixed-30s", "oracle"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scheduler", "nope"], "unknown scheduler"),
        (["--policy", "fixed-1s"], "unknown reporting policies"),
        (["--scenario", "no-such-scenario"], "unknown scenario"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["eval", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_fault_config_is_reported_in_the_document() -> None:
    cfg = PerceptionConfig(faults=FaultConfig())
    assert cfg.faults.failure_mtbf_s is None
