"""One call from settings to a saved policy: what ``aesp train policy`` runs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from aesp.config import ScenarioConfig, load_scenario
from aesp.policy.checkpoint import PolicyCheckpoint, save_checkpoint
from aesp.policy.curriculum import default_stages, train_with_curriculum
from aesp.policy.env import EnvConfig, SchedulingEnv
from aesp.policy.ppo import Callback, PPOConfig, train

EVAL_WORKLOAD_SEEDS = (2000, 2001, 2002, 2003)
"""Workload seeds of the periodic evaluation; disjoint from the training seeds."""


@dataclass(frozen=True)
class TrainSettings:
    """Everything a training run depends on."""

    scenario: str = "seed-experiment"
    steps: int = 40_000
    seed: int = 0
    curriculum: bool = False
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)


def train_policy(settings: TrainSettings, out: str | Path | None = None,
                 callback: Callback | None = None) -> PolicyCheckpoint:
    """Train a policy and, when ``out`` is given, save it there."""
    scenario: ScenarioConfig = load_scenario(settings.scenario)
    base = replace(settings.env, scenario=scenario)
    eval_env = SchedulingEnv(replace(base, workload_seeds=EVAL_WORKLOAD_SEEDS))
    episodes = list(range(settings.ppo.eval_episodes))
    if settings.curriculum:
        result = train_with_curriculum(default_stages(scenario), settings.steps, base, eval_env,
                                       episodes, settings.ppo, settings.seed, callback)
    else:
        result = train([(SchedulingEnv(base), settings.steps)], eval_env, episodes, settings.ppo,
                       settings.seed, callback)
    ckpt = PolicyCheckpoint(result.model, settings_dict(settings), settings.seed,
                            curve=result.curve, wall_s=result.wall_s)
    if out is not None:
        save_checkpoint(ckpt, out)
    return ckpt


def settings_dict(settings: TrainSettings) -> dict[str, Any]:
    """Settings as plain values (safe for ``torch.load(weights_only=True)``)."""
    env = asdict(replace(settings.env, scenario=settings.scenario))
    env["workload_seeds"] = list(env["workload_seeds"])
    return {"scenario": settings.scenario, "steps": settings.steps, "seed": settings.seed,
            "curriculum": settings.curriculum, "env": env, "ppo": asdict(settings.ppo),
            "eval_workload_seeds": list(EVAL_WORKLOAD_SEEDS)}
