"""Finding and loading scenario YAML files, with one clear error for anything wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from aesp.config.models import ScenarioConfig

SCENARIOS_DIR = Path(__file__).resolve().parents[1] / "configs" / "scenarios"
DEFAULT_SCENARIO = "seed-experiment"


class ConfigError(ValueError):
    """A configuration file is missing, unreadable or invalid."""


def available_scenarios() -> tuple[str, ...]:
    """Names of the scenarios shipped with the package."""
    return tuple(sorted(p.stem for p in SCENARIOS_DIR.glob("*.yaml")))


def scenario_path(name_or_path: str) -> Path:
    """A shipped scenario's file by name, or the given file path.

    Raises:
        ConfigError: neither a shipped name nor an existing file.
    """
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml"):
        if not path.is_file():
            raise ConfigError(f"scenario file not found: {path}")
        return path
    shipped = SCENARIOS_DIR / f"{name_or_path}.yaml"
    if not shipped.is_file():
        raise ConfigError(
            f"unknown scenario {name_or_path!r}; known: {', '.join(available_scenarios())}"
        )
    return shipped


def yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error as one line: the problem and where it is."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark else str(problem)


def validation_problem(exc: ValidationError) -> str:
    """A validation error as one line: where the first invalid field is, and what is wrong."""
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return f"{loc}: {first['msg']}"


def read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {yaml_problem(exc)}") from None


def load_scenario(name_or_path: str = DEFAULT_SCENARIO) -> ScenarioConfig:
    """Load and validate a scenario.

    Raises:
        ConfigError: naming the file and the first invalid field.
    """
    path = scenario_path(name_or_path)
    try:
        return ScenarioConfig.model_validate(read_yaml(path))
    except ValidationError as exc:
        raise ConfigError(f"{path}: {validation_problem(exc)}") from None
