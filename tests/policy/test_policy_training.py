"""Checkpoints, the PPO loop and the curriculum stages."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
import torch

import aesp
from aesp.policy.checkpoint import (
    CheckpointError,
    PolicyCheckpoint,
    load_checkpoint,
    save_checkpoint,
)
from aesp.policy.curriculum import default_stages, normalised, steps_to_threshold
from aesp.policy.env import EnvConfig, SchedulingEnv
from aesp.policy.networks import NodeScorer
from aesp.policy.observation import CONTEXT_DIM, NODE_DIM
from aesp.policy.ppo import PPOConfig, train
from aesp.policy.training import TrainSettings, train_policy


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    model = NodeScorer(NODE_DIM, CONTEXT_DIM, 8)
    config = {"scenario": "seed-experiment", "steps": 10, "ppo": {"lr": 0.001}, "seeds": [1, 2]}
    path = tmp_path / "sub" / "p.pt"
    save_checkpoint(PolicyCheckpoint(model, config, seed=7, curve=[[1.0, -2.0]], wall_s=3.5), path)
    raw = torch.load(path, weights_only=True)  # plain data only
    assert raw["version"] == aesp.__version__
    back = load_checkpoint(path)
    assert (back.config, back.seed, back.version, back.curve, back.wall_s) == (
        config, 7, aesp.__version__, [[1.0, -2.0]], 3.5)
    for k, v in model.state_dict().items():
        assert torch.equal(v, back.model.state_dict()[k])


def test_checkpoint_of_other_feature_shape_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "p.pt"
    save_checkpoint(PolicyCheckpoint(NodeScorer(NODE_DIM + 1, CONTEXT_DIM, 8)), path)
    raw = torch.load(path, weights_only=True)
    raw["network"]["node_dim"] = NODE_DIM + 1
    torch.save(raw, path)
    with pytest.raises(CheckpointError, match="features"):
        load_checkpoint(path)


def test_tiny_training_smoke(tmp_path: Path) -> None:
    t0 = time.perf_counter()
    settings = TrainSettings(
        steps=256, seed=3, env=EnvConfig(slice_tasks=16, workload_seeds=(1000,)),
        ppo=replace(PPOConfig(), rollout_steps=128, minibatch=64, epochs=2, eval_every=128,
                    eval_episodes=1),
    )
    ckpt = train_policy(settings, tmp_path / "p.pt")
    assert time.perf_counter() - t0 < 20
    assert [s for s, _ in ckpt.curve] == [128.0, 256.0]
    back = load_checkpoint(tmp_path / "p.pt")
    assert back.config["steps"] == 256 and back.config["env"]["slice_tasks"] == 16
    assert back.seed == 3


def test_training_is_reproducible_for_a_seed() -> None:
    cfg = replace(PPOConfig(), rollout_steps=64, minibatch=32, epochs=1, eval_every=64,
                  eval_episodes=1)

    def run() -> list[list[float]]:
        env = SchedulingEnv(EnvConfig(slice_tasks=8, workload_seeds=(1000,)))
        ev = SchedulingEnv(EnvConfig(slice_tasks=8, workload_seeds=(2000,)))
        return train([(env, 128)], ev, [0], cfg, seed=5).curve

    assert run() == run()


def test_curriculum_stages_grow_to_the_full_scenario() -> None:
    stages = default_stages("seed-experiment")
    assert [s.name for s in stages] == ["single-region", "region-edge", "full"]
    sizes = [len(SchedulingEnv(EnvConfig(scenario=s.scenario, slice_tasks=8)).table) for s in stages]
    assert sizes[0] < sizes[1] < sizes[2] == 85
    tiers = [{site.tier for site in s.scenario.sites} for s in stages]
    assert tiers[0] == {"cloud"} and tiers[1] == {"cloud", "edge"}
    assert sum(s.fraction for s in stages) == pytest.approx(1.0)


def test_steps_to_threshold() -> None:
    # random -10, teacher -4: score = (R + 10) / 6
    curve = normalised([[100, -10.0], [200, -5.5], [300, -4.6], [400, -3.0]], -10.0, -4.0)
    assert [round(s, 2) for _, s in curve] == [0.0, 0.75, 0.9, 1.17]
    assert steps_to_threshold(curve, 0.9) == 300
    assert steps_to_threshold(curve, 2.0) is None
