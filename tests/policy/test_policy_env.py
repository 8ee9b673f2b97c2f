"""The Gymnasium environment: API conformance, masking and the reward formula."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from aesp.core import binding_fits
from aesp.policy.env import EnvConfig, RewardWeights, SchedulingEnv, framework_action, step_reward
from aesp.policy.observation import CONTEXT_DIM, NODE_DIM


def test_env_passes_gymnasium_checker(small_env: SchedulingEnv) -> None:
    check_env(small_env, skip_render_check=True)


def test_observation_has_at_least_50_features_per_decision() -> None:
    assert NODE_DIM + CONTEXT_DIM >= 50


@pytest.mark.parametrize("seed", range(6))
def test_masked_actions_are_always_feasible(small_env: SchedulingEnv, seed: int) -> None:
    """Property: over random masked episodes, every unmasked node passes the aesp filters and
    the binding it produces never over-commits the fleet."""
    env, rng = small_env, np.random.default_rng(seed)
    env.reset(seed=seed)
    done, steps = False, 0
    while not done:
        mask = env.action_masks()
        assert env.task is not None and env.state is not None and mask.any()
        assert not mask[len(env.table):].any()  # padding is never offered
        feasible, _ = env.framework.feasible(env.state, env.task)
        np.testing.assert_array_equal(mask[: len(env.table)], feasible)
        action = int(rng.choice(np.flatnonzero(mask)))
        free = env.table.capacity[action] - env.fleet.allocated[action]
        gpu_free = env.fleet.gpu_free_milli[action].copy()
        _, _, term, trunc, info = env.step(action)
        assert not info["invalid_action"]
        binding = env.bindings.get(max(env.bindings, default=-1))
        if binding is not None and binding.node == action:
            task = env.by_id[binding.task_id]
            assert binding_fits(free, gpu_free, task.request, binding.gpus) == ""
        assert (env.fleet.allocated <= env.table.capacity + 1e-6).all()
        assert (env.fleet.gpu_free_milli >= -1e-6).all()
        done, steps = term or trunc, steps + 1
    assert env.placed + env.dropped == len(env.tasks)


def test_infeasible_action_is_refused_with_a_penalty(small_env: SchedulingEnv) -> None:
    env = small_env
    obs, _ = env.reset(seed=3)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    placed = env.placed
    obs2, reward, term, _, info = env.step(bad)
    assert info["invalid_action"] and reward == -env.config.invalid_action_penalty and not term
    assert env.placed == placed
    np.testing.assert_array_equal(obs["nodes"], obs2["nodes"])


@pytest.mark.parametrize(
    ("util", "jct_s", "usd", "usd_max", "expected"),
    [
        # 1*0.25 - 1*(7200/3600) + 0.5*(4-3)/4 = 0.25 - 2 + 0.125
        (0.25, 7200.0, 3.0, 4.0, -1.625),
        # cheapest of equal-cost nodes: saving 0; 1*0.5 - 1800/3600 = 0
        (0.5, 1800.0, 2.0, 2.0, 0.0),
        # JCT term is capped at 10: 0.1 - 10 + 0.5*(1 - 0/5) = -9.4
        (0.1, 10 * 86400.0, 0.0, 5.0, -9.4),
        # nothing costs anything: no saving term; 0 - 0 + 0
        (0.0, 0.0, 0.0, 0.0, 0.0),
    ],
)
def test_step_reward_hand_computed(util: float, jct_s: float, usd: float, usd_max: float,
                                   expected: float) -> None:
    assert step_reward(RewardWeights(1.0, 1.0, 0.5), util, jct_s, usd, usd_max) == pytest.approx(expected)


def test_env_reward_matches_the_formula_for_a_placement() -> None:
    """The first placement of an episode, recomputed from the cluster tables by hand."""
    env = SchedulingEnv(EnvConfig(slice_tasks=8, workload_seeds=(1000,),
                                  weights=RewardWeights(2.0, 0.5, 1.0)))
    env.reset(seed=0)
    task, mask, now = env.task, env.mask.copy(), env.now_s
    assert task is not None
    node = framework_action(env)
    usd = env.features.placement_usd(task)
    speed = env.speed.speed(task, node)
    topo, site = env.table.topology, int(env.table.site[node])
    origin = topo.index(task.data_origin)
    transfer_s = 0.0 if origin == site else task.data_size_gb * 8000 / topo.bandwidth_mbps[origin, site]
    jct = (now - task.arrival_s) + transfer_s + task.work / speed
    cap = env.table.capacity.sum(axis=0)
    vec = task.request.vector()
    util = (vec[0] / cap[0] + vec[2] / cap[2]) / 2  # empty cluster before this placement
    expected = 2.0 * util - 0.5 * min(jct / 3600, 10) + 1.0 * (usd[mask].max() - usd[node]) / usd[mask].max()
    _, reward, *_ = env.step(node)
    assert reward == pytest.approx(expected)


def test_episodes_are_seeded() -> None:
    a = SchedulingEnv(EnvConfig(slice_tasks=8))
    b = SchedulingEnv(EnvConfig(slice_tasks=8))
    oa, _ = a.reset(seed=42)
    ob, _ = b.reset(seed=42)
    for key in oa:
        np.testing.assert_array_equal(oa[key], ob[key])
    assert [t.name for t in a.tasks] == [t.name for t in b.tasks]
