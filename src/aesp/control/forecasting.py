"""Forecasts in decisions: elastic GPU capacity handled reactively vs ahead of a forecast peak.

Runs a scenario with elastic GPU pools (``region-peaks`` by default) once per seed and arm, all
arms on the same workload and the same elastic pool:

- ``always-on``: the ``aesp`` profile with the elastic nodes up all the time (a reference).
- ``reactive``: the ``aesp`` profile; elastic nodes boot only once tasks already wait.
- ``predictive``: the ``aesp`` profile; elastic nodes also boot ahead of a forecast peak.
- ``predictive+LoadForecast``: the ``aesp-forecast`` profile (``LoadForecast`` scoring) with
  the predictive controller.

Usage::

    python -m aesp.control.forecasting --seeds 1,2,3 [--provision-delay-s 900] [--json out.json]

This lives in ``control/`` rather than ``experiments/`` because the layer contract makes
``control`` and ``experiments`` independent siblings (neither may import the other).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from aesp.config import load_scenario
from aesp.config.capability import load_capability
from aesp.control.provisioning import (
    Mode,
    ProvisioningConfig,
    ProvisioningController,
    elastic_nodes,
)
from aesp.placement import build_scheduler
from aesp.sim.driver import SimConfig, Simulation
from aesp.sim.scenario import materialise
from aesp.sim.speed import CapabilitySpeed

ARMS: dict[str, tuple[str, Mode | None]] = {
    "always-on": ("aesp", None),
    "reactive": ("aesp", "reactive"),
    "predictive": ("aesp", "predictive"),
    "predictive+LoadForecast": ("aesp-forecast", "predictive"),
}
"""Arm name -> (scheduler profile, controller mode); ``None``: the elastic pool is never parked
(the reference for cost and wait, paid for the whole run)."""


@dataclass(frozen=True)
class ArmResult:
    """One arm on one seed."""

    arm: str
    seed: int
    mean_jct_s: float
    mean_wait_s: float
    p95_wait_s: float
    gpu_mean_wait_s: float
    """Mean wait of the tasks that asked for GPUs (those the elastic pool serves)."""
    elastic_node_hours: float
    boots: int
    forecast_boots: int
    unscheduled: int


def run_arm(
    scenario: str, seed: int, arm: str, config: ProvisioningConfig | None = None
) -> ArmResult:
    """Simulate one arm of :data:`ARMS` on one seed of ``scenario``."""
    profile, mode = ARMS[arm]
    cfg = load_scenario(scenario)
    m = materialise(cfg, seed)
    pool = elastic_nodes(m.table)
    controller = ProvisioningController(
        m.table, pool if mode else pool[:0], mode or "reactive", config or ProvisioningConfig()
    )
    sim = Simulation(
        m.table,
        m.tasks,
        controller.watch(build_scheduler(profile, seed)),
        SimConfig(cycle_interval_s=cfg.cycle_interval_s, max_wait_s=cfg.max_wait_s),
        speed=CapabilitySpeed(m.table, load_capability()),
        ticker=controller,
    )
    metrics = sim.run()
    end_s = sim.recorder.last_t or 0.0
    controller.close(end_s)
    node_hours = controller.node_hours if mode else len(pool) * end_s / 3600.0
    bound = ~np.isnan(sim.recorder.bind_s)
    arrival = np.array([t.arrival_s for t in m.tasks])
    gpu = np.array([t.request.gpu_count > 0 for t in m.tasks]) & bound
    gpu_wait = sim.recorder.bind_s[gpu] - arrival[gpu]
    return ArmResult(
        arm, seed, metrics.mean_jct_s, metrics.mean_wait_s, metrics.p95_wait_s,
        float(gpu_wait.mean()) if gpu_wait.size else float("nan"),
        node_hours, controller.boots, controller.forecast_boots, metrics.unscheduled,
    )  # fmt: skip


def compare_provisioning(
    seeds: Sequence[int] = (1, 2, 3),
    scenario: str = "region-peaks",
    arms: Sequence[str] = tuple(ARMS),
    config: ProvisioningConfig | None = None,
) -> list[ArmResult]:
    """Every arm on every seed (same workload per seed across arms)."""
    return [run_arm(scenario, seed, arm, config) for seed in seeds for arm in arms]


def _mean(rows: Sequence[ArmResult], key: str) -> float:
    return float(np.mean([getattr(r, key) for r in rows]))


def markdown_table(results: Sequence[ArmResult]) -> str:
    """Mean over seeds per arm, with the change of mean JCT and wait against ``reactive``."""
    arms = list(dict.fromkeys(r.arm for r in results))
    by_arm = {a: [r for r in results if r.arm == a] for a in arms}
    base = by_arm.get("reactive")
    lines = [
        "| arm | mean JCT (s) | Δ JCT | mean wait (s) | Δ wait | p95 wait (s) "
        "| GPU-task wait (s) | elastic node-h | boots (forecast) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for arm, rows in by_arm.items():
        jct, wait = _mean(rows, "mean_jct_s"), _mean(rows, "mean_wait_s")
        d_jct = f"{(jct / _mean(base, 'mean_jct_s') - 1) * 100:+.1f} %" if base else "-"
        d_wait = f"{(wait / _mean(base, 'mean_wait_s') - 1) * 100:+.1f} %" if base else "-"
        lines.append(
            f"| {arm} | {jct:,.0f} | {d_jct} | {wait:,.0f} | {d_wait} "
            f"| {_mean(rows, 'p95_wait_s'):,.0f} | {_mean(rows, 'gpu_mean_wait_s'):,.0f} "
            f"| {_mean(rows, 'elastic_node_hours'):.1f} | {_mean(rows, 'boots'):.1f} "
            f"({_mean(rows, 'forecast_boots'):.1f}) |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3", help="comma-separated workload seeds")
    parser.add_argument("--scenario", default="region-peaks")
    parser.add_argument("--json", type=Path, default=None, help="write per-seed results here")
    parser.add_argument(
        "--provision-delay-s", type=float, default=None,
        help="boot/migration delay (default 900); the forecast looks this plus 900 s ahead",
    )  # fmt: skip
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    config = ProvisioningConfig()
    if args.provision_delay_s is not None:
        delay = float(args.provision_delay_s)
        config = replace(config, provision_delay_s=delay, forecast_horizon_s=delay + 900.0)
    results = compare_provisioning(seeds, args.scenario, config=config)
    print(markdown_table(results))
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=2))
    return 0


__all__ = ["ARMS", "ArmResult", "compare_provisioning", "main", "markdown_table", "run_arm"]

if __name__ == "__main__":
    raise SystemExit(main())
