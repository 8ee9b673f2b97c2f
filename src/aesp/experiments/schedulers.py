"""Scheduler names to schedulers, including the learned ``rl`` profile, and its evaluation.

``make_scheduler("rl", seed)`` loads the policy shipped with the package; ``rl:PATH`` loads a
policy file. Every other name goes to :func:`aesp.placement.build_scheduler`. Torch is imported
only when an ``rl`` scheduler is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from aesp.core import Scheduler
from aesp.placement import build_scheduler

RL_PREFIX = "rl"


def make_scheduler(name: str, seed: int = 0) -> Scheduler:
    """A scheduler by profile name, profile path, ``rl`` or ``rl:POLICY_FILE``.

    Raises:
        ProfileError / UnknownPluginError: an unknown profile. A missing or corrupt policy is
            not an error: the ``rl`` scheduler then falls back to the ``aesp`` profile.
    """
    if name == RL_PREFIX or name.startswith(RL_PREFIX + ":"):
        from aesp.policy.scheduler import RLScheduler

        path = name.partition(":")[2] or None
        return RLScheduler(path, seed)
    return build_scheduler(name, seed)


EVAL_SCHEDULERS = ("rl", "kube-default", "load-aware", "aesp")
HELD_OUT_SEEDS = (1, 2, 3, 4, 5)
"""Workload seeds of the evaluation: disjoint from training (1000-1015) and periodic
evaluation (2000-2003) seeds, and from the scenario's own seed 7."""


def evaluate(scenario: str = "seed-experiment", seeds: Sequence[int] = HELD_OUT_SEEDS,
             schedulers: Sequence[str] = EVAL_SCHEDULERS) -> dict[str, dict[str, Any]]:
    """Run each scheduler on each held-out seed; mean metrics per scheduler.

    Returns ``{scheduler: {"gpu_util", "mean_wait_s", "p95_wait_s", "mean_jct_s", "usd",
    "decision_ms", "sla_violation_rate", "unscheduled", "fallbacks", "per_seed": [...]}}``.
    """
    from aesp.experiments.runs import scenario_workload
    from aesp.sim.driver import Simulation

    rows: dict[str, list[dict[str, float]]] = {s: [] for s in schedulers}
    for seed in seeds:
        w = scenario_workload(scenario, seed)
        for name in schedulers:
            sched = make_scheduler(name, seed)
            m = Simulation(w.table, w.tasks, sched, w.sim, speed=w.speed).run()
            stats = getattr(sched, "stats", {})
            rows[name].append({
                "seed": float(seed), "gpu_util": m.util["gpu"], "cpu_util": m.util["cpu"],
                "mean_wait_s": m.mean_wait_s, "p95_wait_s": m.p95_wait_s,
                "mean_jct_s": m.mean_jct_s, "usd": m.compute_usd + m.transfer_usd + m.compliance_usd,
                "decision_ms": m.mean_decision_ms, "sla_violation_rate": m.sla_violation_rate,
                "unscheduled": float(m.unscheduled), "fallbacks": float(stats.get("fallbacks", 0.0)),
            })  # fmt: skip
    out: dict[str, dict[str, Any]] = {}
    for name, per_seed in rows.items():
        keys = [k for k in per_seed[0] if k != "seed"]
        out[name] = {k: float(np.mean([r[k] for r in per_seed])) for k in keys}
        out[name]["per_seed"] = per_seed
    return out


__all__ = ["EVAL_SCHEDULERS", "HELD_OUT_SEEDS", "evaluate", "make_scheduler"]
