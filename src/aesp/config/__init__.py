"""Typed configuration: scenario models and their YAML loader."""

from aesp.config.loader import (
    DEFAULT_SCENARIO,
    ConfigError,
    available_scenarios,
    load_scenario,
    read_yaml,
)
from aesp.config.models import (
    Dist,
    LinkConfig,
    NodePoolConfig,
    ScenarioConfig,
    SiteConfig,
    TaskClassConfig,
    WorkloadConfig,
)

__all__ = [
    "DEFAULT_SCENARIO",
    "ConfigError",
    "Dist",
    "LinkConfig",
    "NodePoolConfig",
    "ScenarioConfig",
    "SiteConfig",
    "TaskClassConfig",
    "WorkloadConfig",
    "available_scenarios",
    "load_scenario",
    "read_yaml",
]
