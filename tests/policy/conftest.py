"""Small environments and scenarios shared by the policy tests."""

from __future__ import annotations

import pytest

from aesp.config import ScenarioConfig, load_scenario
from aesp.policy.env import EnvConfig, SchedulingEnv


def small_scenario(tasks: int = 60) -> ScenarioConfig:
    """seed-experiment with fewer tasks (same cluster, same classes)."""
    full = load_scenario("seed-experiment")
    return full.model_copy(update={"workload": full.workload.model_copy(update={"tasks": tasks})})


@pytest.fixture(scope="module")
def small_env() -> SchedulingEnv:
    return SchedulingEnv(EnvConfig(slice_tasks=24, workload_seeds=(1000, 1001)))
