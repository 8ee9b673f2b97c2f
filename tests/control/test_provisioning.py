"""Elastic GPU provisioning: the sizing rules, and a small ramp where forecasting boots earlier.

Ramp cluster (one region ``r``): an always-on node ``base`` with 8 GPUs and a parked elastic
node ``x-elastic`` with 8 GPUs. One 1-GPU task from ``r`` arrives every 120 s and runs 3 hours,
so GPU demand climbs 0.5 GPU a minute and fills ``base`` after 16 minutes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from aesp.control.forecasting import ARMS, main, markdown_table, run_arm
from aesp.control.provisioning import (
    ProvisioningConfig,
    ProvisioningController,
    can_run,
    elastic_nodes,
    nodes_to_cover,
)
from aesp.core import NodeTable, Task
from aesp.placement import build_scheduler
from aesp.sim.driver import Simulation
from aesp.testing import cluster, make_node, make_task

SCENARIOS = Path(__file__).resolve().parents[2] / "src" / "aesp" / "configs" / "scenarios"


def ramp_table() -> NodeTable:
    return cluster([
        make_node("base").cpu(96000).mem(1 << 20).gpus(8, "A100").site("r"),
        make_node("x-elastic").cpu(96000).mem(1 << 20).gpus(8, "A100").site("r"),
    ])  # fmt: skip


def ramp_tasks(n: int = 14) -> list[Task]:
    return [
        make_task(i).cpu(1000).mem(1024).gpu(1).arrival(120.0 * i).work(10800).origin("r").build()
        for i in range(n)
    ]


def run_ramp(mode: str) -> tuple[ProvisioningController, float]:
    table = ramp_table()
    ctl = ProvisioningController(table, elastic_nodes(table), mode)  # type: ignore[arg-type]
    sim = Simulation(table, ramp_tasks(), ctl.watch(build_scheduler("aesp", 0)), ticker=ctl)
    metrics = sim.run()
    ctl.close(sim.recorder.last_t or 0.0)
    return ctl, metrics.mean_wait_s


@pytest.mark.parametrize(
    ("demand", "capacities", "expected"),
    [
        (0.0, [8000, 8000], 0),  # nothing to hold
        (1.0, [8000, 8000], 1),
        (8000.0, [8000, 8000], 1),  # exactly one node
        (8001.0, [8000, 8000], 2),  # cumsum 8000, 16000 -> second node covers it
        (50000.0, [8000, 8000], 2),  # more than the pool: all of it
        (5000.0, [], 0),  # no parked node left
    ],
)
def test_nodes_to_cover(demand: float, capacities: list[float], expected: int) -> None:
    assert nodes_to_cover(demand, np.array(capacities, np.float64)) == expected


def test_can_run_checks_size_model_arch_and_jurisdiction() -> None:
    table = ramp_table()
    ok = make_task(0).gpu(4).gpu_models("A100").arches("x86_64").build()
    assert can_run(ok, table, 1)
    assert not can_run(make_task(1).gpu(9).build(), table, 1)  # 9 GPUs > 8
    assert not can_run(make_task(2).gpu(1).gpu_models("T4").build(), table, 1)
    assert not can_run(make_task(3).arches("arm64").build(), table, 1)
    assert not can_run(make_task(4).jurisdictions("EU").build(), table, 1)  # site has none


def test_elastic_nodes_by_name() -> None:
    np.testing.assert_array_equal(elastic_nodes(ramp_table()), [1])


def test_reactive_boots_only_after_a_task_waited() -> None:
    # base is full once task 8 (t=960 s) arrives; it is pending at the 1020 s tick (60 s < the
    # 120 s trigger) and counts at the 1080 s tick -> boot at 1080, ready at 1080 + 900 = 1980.
    ctl, _ = run_ramp("reactive")
    assert ctl.events[0] == (1080.0, "boot", 1)
    assert ctl.events[1] == (1980.0, "ready", 1)
    assert ctl.forecast_boots == 0


def test_predictive_boots_before_the_queue_forms_and_cuts_the_wait() -> None:
    # after 10 one-minute samples (t=540 s) demand is ~5 GPUs rising 0.5 GPU/min: the 30-minute
    # trend peak (~20 GPUs) is above 0.9 * 8 of active capacity -> boot then, ready by 1440 s,
    # before task 8 arrives at 960 s has waited long; reactive's node is ready only at 1980 s.
    reactive, reactive_wait = run_ramp("reactive")
    predictive, predictive_wait = run_ramp("predictive")
    first_boot = predictive.events[0]
    assert first_boot[1] == "boot" and first_boot[0] < 960.0
    assert predictive.forecast_boots == 1
    assert predictive_wait < reactive_wait
    # the early boot is paid for: more elastic node-hours than the reactive run
    assert predictive.node_hours > reactive.node_hours > 0


def test_elastic_nodes_start_parked_and_idle_ones_are_parked_again() -> None:
    # one short task; nothing ever waits, so the elastic node is never booted
    table = ramp_table()
    ctl = ProvisioningController(table, elastic_nodes(table), "predictive")
    task = make_task(0).gpu(1).work(60).origin("r").build()
    sim = Simulation(table, [task], ctl.watch(build_scheduler("aesp", 0)), ticker=ctl)
    sim.run()
    assert not sim.fleet.up[1] and ctl.boots == 0 and ctl.node_hours == 0.0


def test_forecast_skips_fall_back_to_reactive() -> None:
    # a history minimum longer than the run: the predictive mode never forecasts, so it acts
    # exactly like the reactive one
    cfg = ProvisioningConfig(min_history_steps=10_000)
    table = ramp_table()
    ctl = ProvisioningController(table, elastic_nodes(table), "predictive", cfg)
    Simulation(table, ramp_tasks(), ctl.watch(build_scheduler("aesp", 0)), ticker=ctl).run()
    reactive, _ = run_ramp("reactive")
    assert ctl.events == reactive.events and ctl.forecast_skips > 0


def test_comparison_runs_end_to_end_on_a_small_region_peaks(tmp_path: Path) -> None:
    raw = yaml.safe_load((SCENARIOS / "region-peaks.yaml").read_text())
    raw["workload"]["tasks"] = 120
    raw["workload"]["horizon_s"] = 21600
    scenario = tmp_path / "small.yaml"
    scenario.write_text(yaml.safe_dump(raw))
    out = tmp_path / "out.json"
    assert main(["--seeds", "1", "--scenario", str(scenario), "--json", str(out)]) == 0
    rows = yaml.safe_load(out.read_text())  # JSON is YAML
    assert [r["arm"] for r in rows] == list(ARMS)
    assert all(r["unscheduled"] == 0 and r["elastic_node_hours"] >= 0 for r in rows)
    table = markdown_table([run_arm(str(scenario), 1, "reactive")])
    assert table.splitlines()[2].startswith("| reactive |")
