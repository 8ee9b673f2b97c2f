"""Running several schedulers on the same workload, side by side."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aesp.config import ScenarioConfig, load_scenario
from aesp.config.capability import load_capability
from aesp.core import NodeTable, Scheduler, Task, Topology
from aesp.experiments.schedulers import make_scheduler
from aesp.sim.driver import SimConfig, Simulation, SpeedModel, UnitSpeed
from aesp.sim.fill import FillConfig, FillResult, fill
from aesp.sim.recorder import RunMetrics
from aesp.sim.reported import ReportedState
from aesp.sim.scenario import materialise
from aesp.sim.speed import CapabilitySpeed
from aesp.sim.traces import TraceError, read_openb_nodes, read_openb_pods, sniff

DEFAULT_REPORT_INTERVAL_S = 30.0
"""Agents' steady reporting interval in ``aesp simulate`` (the perception layer's steady state)."""

ProgressFactory = Callable[[str], Callable[[int, int], None]]


@dataclass(frozen=True)
class Workload:
    """A cluster plus the tasks to run on it, with the settings of the run."""

    name: str
    seed: int
    table: NodeTable
    tasks: tuple[Task, ...]
    sim: SimConfig
    speed: SpeedModel
    """How fast tasks run where they are placed (the capability matrix by default)."""


def capability_speed(table: NodeTable, matrix: str | Path | None = None) -> CapabilitySpeed:
    """Task speeds from the shipped (or a given) capability matrix."""
    return CapabilitySpeed(table, load_capability(matrix))


def scenario_workload(scenario: str | ScenarioConfig, seed: int | None = None) -> Workload:
    """A shipped or file scenario, materialised for ``seed`` (the scenario's own by default)."""
    config = load_scenario(scenario) if isinstance(scenario, str) else scenario
    m = materialise(config, seed)
    sim = SimConfig(cycle_interval_s=config.cycle_interval_s, max_wait_s=config.max_wait_s)
    return Workload(config.name, m.seed, m.table, m.tasks, sim, capability_speed(m.table))


def load_trace_workload(pods: Path, nodes: Path, seed: int = 0) -> Workload:
    """An OpenB pod list replayed on an OpenB node list (formats recognised by the header).

    Raises:
        TraceError: a file of the wrong format or a malformed row.
        FileNotFoundError: a missing file.
    """
    for path, want in ((pods, "openb-pods"), (nodes, "openb-nodes")):
        got = sniff(path)
        if got != want:
            raise TraceError(str(path), 1, f"expected an {want} file, found {got}")
    node_list = read_openb_nodes(nodes, site="openb")
    table = NodeTable.build(node_list, Topology.single_site("openb"))
    tasks = tuple(read_openb_pods(pods))
    # Pod lifetimes in the trace are wall-clock times already measured on the hardware the pods
    # ran on (most are long-running services), not work to be sped up: replay them as recorded.
    return Workload(f"openb:{Path(pods).name}", seed, table, tasks, SimConfig(), UnitSpeed())


def build_schedulers(names: Sequence[str], seed: int) -> dict[str, Scheduler]:
    """Schedulers by name, each with a generator seeded from ``seed``.

    Raises:
        ProfileError / UnknownPluginError: an unknown scheduler, before anything runs.
    """
    return {name: make_scheduler(name, seed) for name in names}


def compare(
    workload: Workload,
    schedulers: Sequence[str] | Mapping[str, Scheduler],
    progress: ProgressFactory | None = None,
    oracle: bool = False,
    report_interval_s: float = DEFAULT_REPORT_INTERVAL_S,
) -> dict[str, RunMetrics]:
    """Run each scheduler on the same workload (names are built with the workload's seed).

    Schedulers decide on usage as node agents last reported it every ``report_interval_s``
    (:class:`aesp.sim.reported.ReportedState`), or on ground truth with ``oracle``.
    """
    built = (
        schedulers
        if isinstance(schedulers, Mapping)
        else build_schedulers(schedulers, workload.seed)
    )
    results = {}
    for name, scheduler in built.items():
        sim = Simulation(
            workload.table,
            workload.tasks,
            scheduler,
            workload.sim,
            speed=workload.speed,
            observer=None if oracle else ReportedState(workload.table, report_interval_s, workload.seed),
            progress=progress(name) if progress else None,
        )
        results[name] = sim.run()
    return results


def results_document(
    workload: Workload, results: dict[str, RunMetrics], perception: str = "reported-30s"
) -> dict[str, Any]:
    """The ``--json`` document: ``{"scenario", "seed", "perception", "results": {SCHEDULER: ...}}``."""
    return {
        "scenario": workload.name,
        "seed": workload.seed,
        "perception": perception,
        "results": {name: m.to_json() for name, m in results.items()},
    }


def fill_compare(
    workload: Workload, schedulers: Sequence[str] | Mapping[str, Scheduler], patience: int = 200
) -> dict[str, FillResult]:
    """The fill experiment for each scheduler, all drawing the same pod sequence."""
    built = (
        schedulers
        if isinstance(schedulers, Mapping)
        else build_schedulers(schedulers, workload.seed)
    )
    config = FillConfig(seed=workload.seed, patience=patience)
    return {name: fill(workload.table, workload.tasks, s, config) for name, s in built.items()}


def fill_document(workload: Workload, results: dict[str, FillResult]) -> dict[str, Any]:
    """The ``--json`` document of a fill run."""
    return {
        "scenario": workload.name,
        "seed": workload.seed,
        "mode": "fill",
        "results": {name: r.to_json() for name, r in results.items()},
    }
