"""The Gymnasium environment: API conformance, masking and the reward formula."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from aesp.core import Task, binding_fits
from aesp.policy.env import (
    EnvConfig,
    RewardWeights,
    SchedulingEnv,
    framework_action,
    slo_violated,
    step_reward,
)
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
    ("util", "jct_s", "usd", "usd_max", "violated", "expected"),
    [
        # 1*0.25 - 1*(7200/3600) + 0.5*(4-3)/4 - 1*0 = 0.25 - 2 + 0.125
        (0.25, 7200.0, 3.0, 4.0, False, -1.625),
        # the same placement breaking the task's latency SLO: -1.625 - 1*1
        (0.25, 7200.0, 3.0, 4.0, True, -2.625),
        # cheapest of equal-cost nodes: saving 0; 1*0.5 - 1800/3600 = 0
        (0.5, 1800.0, 2.0, 2.0, False, 0.0),
        # JCT term is capped at 10: 0.1 - 10 + 0.5*(1 - 0/5) = -9.4
        (0.1, 10 * 86400.0, 0.0, 5.0, False, -9.4),
        # nothing costs anything: no saving term; 0 - 0 + 0 - 0
        (0.0, 0.0, 0.0, 0.0, False, 0.0),
        # only the SLO term: 0 - 0 + 0 - 1
        (0.0, 0.0, 0.0, 0.0, True, -1.0),
    ],
)
def test_step_reward_hand_computed(util: float, jct_s: float, usd: float, usd_max: float,
                                   violated: bool, expected: float) -> None:
    w = RewardWeights(1.0, 1.0, 0.5, 1.0)
    assert step_reward(w, util, jct_s, usd, usd_max, violated) == pytest.approx(expected)


def test_default_weights_include_the_slo_term() -> None:
    assert RewardWeights() == RewardWeights(1.0, 1.0, 0.5, 1.0)
    # w4 scales the penalty; 0 switches it off
    assert step_reward(RewardWeights(slo=2.5), 0.0, 0.0, 0.0, 0.0, True) == pytest.approx(-2.5)
    assert step_reward(RewardWeights(slo=0.0), 0.0, 0.0, 0.0, 0.0, True) == 0.0


def _slo_case(env: SchedulingEnv) -> tuple[Task, int, int]:
    """A latency-bound task with a data origin, a node within its SLO and one beyond it."""
    topo, site = env.table.topology, env.table.site
    for task in env._workloads[env.config.workload_seeds[0]]:
        if task.latency_slo_ms is None or not task.data_origin:
            continue
        rtt = topo.rtt_ms[topo.index(task.data_origin), site]
        ok, bad = np.flatnonzero(rtt <= task.latency_slo_ms), np.flatnonzero(rtt > task.latency_slo_ms)
        if len(ok) and len(bad):
            return task, int(ok[0]), int(bad[0])
    pytest.skip("no latency-bound task with nodes on both sides of its SLO")


def test_slo_violated_follows_the_simulators_rtt_rule(small_env: SchedulingEnv) -> None:
    env = small_env
    task, ok, bad = _slo_case(env)
    assert not slo_violated(task, env.table, ok)
    assert slo_violated(task, env.table, bad)
    # without an SLO, or without a data origin (RTT 0 in the simulator), never a violation
    assert not slo_violated(replace(task, latency_slo_ms=None), env.table, bad)
    assert not slo_violated(replace(task, data_origin=""), env.table, bad)
    # the threshold is strict: RTT equal to the SLO is within it
    topo = env.table.topology
    rtt = float(topo.rtt_ms[topo.index(task.data_origin), int(env.table.site[bad])])
    assert not slo_violated(replace(task, latency_slo_ms=rtt), env.table, bad)


def test_env_reward_charges_the_slo_term_on_a_violating_placement() -> None:
    """Two otherwise identical environments, w4 = 0 and w4 = 3: when the chosen node breaks the
    task's SLO the rewards differ by exactly 3, otherwise they are equal."""
    seen = {True: False, False: False}
    for seed in range(40):
        envs = [SchedulingEnv(EnvConfig(slice_tasks=4, workload_seeds=(1000,),
                                        weights=RewardWeights(slo=w4))) for w4 in (0.0, 3.0)]
        for env in envs:
            env.reset(seed=seed)
        task = envs[0].task
        assert task is not None
        if task.latency_slo_ms is None or not task.data_origin:
            continue
        topo, table = envs[0].table.topology, envs[0].table
        rtt = topo.rtt_ms[topo.index(task.data_origin), table.site]
        for want in (True, False):
            cand = np.flatnonzero(envs[0].mask & ((rtt > task.latency_slo_ms) == want))
            if seen[want] or not len(cand):
                continue
            node = int(cand[0])
            r0, r3 = (env.step(node)[1] for env in envs)
            assert r0 - r3 == pytest.approx(3.0 if want else 0.0)
            seen[want] = True
            break
        if all(seen.values()):
            return
    pytest.skip(f"did not find both kinds of placement: {seen}")


def test_env_reward_matches_the_formula_for_a_placement() -> None:
    """The first placement of an episode, recomputed from the cluster tables by hand."""
    env = SchedulingEnv(EnvConfig(slice_tasks=8, workload_seeds=(1000,),
                                  weights=RewardWeights(2.0, 0.5, 1.0, 0.25)))
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
    slo = task.latency_slo_ms
    violated = slo is not None and topo.rtt_ms[origin, site] > slo
    expected = (2.0 * util - 0.5 * min(jct / 3600, 10)
                + 1.0 * (usd[mask].max() - usd[node]) / usd[mask].max() - 0.25 * violated)
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
