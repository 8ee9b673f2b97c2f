"""Curriculum learning: from a small single-region cluster to the full multi-region fleet.

Stages are cut programmatically from a scenario (``seed-experiment`` by default):

1. ``single-region``: the cloud sites of the scenario's first region, tasks may originate at
   any site (there is no edge yet), task count scaled to the node share.
2. ``region-edge``: the same region plus its edge sites; origins as in the scenario.
3. ``full``: the whole scenario.

Each stage gets a fraction of the step budget (``fractions``). Convergence is measured on the
*full* scenario's held-out evaluation episodes as a normalised score

    score = (R - R_random) / (R_teacher - R_random)

where ``R_random`` is the mean return of a uniformly random feasible choice and ``R_teacher``
that of the ``aesp`` profile's weighted scores used greedily (:func:`framework_action`). The
"steps to threshold" of a run is the first evaluation step whose score reaches ``threshold``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from aesp.config import ScenarioConfig, load_scenario
from aesp.policy.env import EnvConfig, SchedulingEnv, framework_action
from aesp.policy.ppo import Callback, PPOConfig, TrainResult, train


@dataclass(frozen=True)
class Stage:
    name: str
    scenario: ScenarioConfig
    fraction: float
    """Share of the step budget spent in this stage."""


def subset(config: ScenarioConfig, sites: Sequence[str], name: str,
           any_origin: bool = False) -> ScenarioConfig:
    """The scenario restricted to ``sites`` (their pools and links), with tasks scaled by nodes."""
    keep = set(sites)
    pools = tuple(p for p in config.node_pools if p.site in keep)
    share = sum(p.count for p in pools) / sum(p.count for p in config.node_pools)
    classes = config.workload.classes
    if any_origin:
        classes = {k: c.model_copy(update={"origin_tier": "any"}) for k, c in classes.items()}
    workload = config.workload.model_copy(
        update={"tasks": max(20, round(config.workload.tasks * share)), "classes": classes})
    return config.model_copy(update={
        "name": f"{config.name}:{name}",
        "sites": tuple(s for s in config.sites if s.name in keep),
        "links": tuple(link for link in config.links if link.a in keep and link.b in keep),
        "node_pools": pools,
        "workload": workload,
    })  # fmt: skip


def default_stages(scenario: str | ScenarioConfig = "seed-experiment",
                   fractions: tuple[float, float, float] = (0.2, 0.3, 0.5)) -> list[Stage]:
    """The three stages of the module docstring."""
    full = load_scenario(scenario) if isinstance(scenario, str) else scenario
    region = full.sites[0].region
    cloud = [s.name for s in full.sites if s.region == region and s.tier == "cloud"]
    edge = [s.name for s in full.sites if s.region == region and s.tier == "edge"]
    return [
        Stage("single-region", subset(full, cloud, "single-region", any_origin=True), fractions[0]),
        Stage("region-edge", subset(full, cloud + edge, "region-edge"), fractions[1]),
        Stage("full", full, fractions[2]),
    ]


def baseline_returns(env: SchedulingEnv, seeds: Sequence[int]) -> tuple[float, float]:
    """``(R_random, R_teacher)`` mean returns on ``env`` over episodes reset with ``seeds``."""
    rng = np.random.default_rng(0)

    def run(pick: Callable[[], int]) -> float:
        total = 0.0
        for s in seeds:
            env.reset(seed=s)
            done = False
            while not done:
                _, r, term, trunc, _ = env.step(pick())
                total += float(r)
                done = term or trunc
        return total / len(seeds)

    random = run(lambda: int(rng.choice(np.flatnonzero(env.action_masks()))))
    return random, run(lambda: framework_action(env))


def normalised(curve: Sequence[Sequence[float]], r_random: float, r_teacher: float) -> list[list[float]]:
    """Curve of ``[step, return]`` as ``[step, score]`` (module docstring)."""
    span = r_teacher - r_random
    return [[s, (r - r_random) / span if span else 0.0] for s, r in curve]


def steps_to_threshold(score_curve: Sequence[Sequence[float]], threshold: float) -> float | None:
    """First step whose score reaches ``threshold``; None if never."""
    for step, score in score_curve:
        if score >= threshold:
            return step
    return None


def train_with_curriculum(stages: Sequence[Stage], total_steps: int, base: EnvConfig,
                          eval_env: SchedulingEnv, eval_seeds: Sequence[int],
                          cfg: PPOConfig | None = None, seed: int = 0,
                          callback: Callback | None = None) -> TrainResult:
    """PPO over the stages in order, each for its fraction of ``total_steps``."""
    cfg = cfg or PPOConfig()
    schedule = []
    used = 0
    for i, stage in enumerate(stages):
        steps = total_steps - used if i == len(stages) - 1 else round(total_steps * stage.fraction)
        schedule.append((SchedulingEnv(replace(base, scenario=stage.scenario)), steps))
        used += steps
    return train(schedule, eval_env, eval_seeds, cfg, seed, callback)


@dataclass(frozen=True)
class ConvergenceRun:
    curriculum: bool
    seed: int
    steps_to_threshold: float | None
    final_score: float
    curve: list[list[float]]


def compare_convergence(total_steps: int, seeds: Sequence[int], base: EnvConfig,
                        eval_seeds: Sequence[int], cfg: PPOConfig, threshold: float = 1.0,
                        log: Callable[[str], None] | None = None) -> list[ConvergenceRun]:
    """Train with and without the curriculum on the same budget and seeds; score both."""
    eval_env = SchedulingEnv(replace(base, workload_seeds=tuple(eval_seeds)))
    episode_seeds = list(range(len(eval_seeds)))
    r_random, r_teacher = baseline_returns(eval_env, episode_seeds)
    runs = []
    for seed in seeds:
        for use in (False, True):
            if use:
                result = train_with_curriculum(default_stages(base.scenario), total_steps, base,
                                               eval_env, episode_seeds, cfg, seed)
            else:
                result = train([(SchedulingEnv(base), total_steps)], eval_env, episode_seeds, cfg, seed)
            curve = normalised(result.curve, r_random, r_teacher)
            run = ConvergenceRun(use, seed, steps_to_threshold(curve, threshold), curve[-1][1], curve)
            runs.append(run)
            if log is not None:
                log(f"seed {seed} curriculum={use}: steps_to_{threshold}={run.steps_to_threshold} "
                    f"final={run.final_score:.3f} wall={result.wall_s:.0f}s")
    return runs
